"""Rebuilt from https://github.com/pytorch/executorch/issues/8988
"[Request Help] torch._dynamo.exc.UserError: Could not guard on data-dependent expression Eq(u77 - 1, 1)"

The user saw torch.export stop with "Could not guard on data-dependent expression" where a
count read with `.item()` chose between two code paths.
"""
import torch


class KeepOrPad(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x, valid):
        n = valid.sum().item()
        if n - 1 == 1:
            out = self.proj(x[:2])
        else:
            out = self.proj(x).mean(dim=0, keepdim=True).expand(2, 8)
        return out


example_args = (torch.randn(6, 8), torch.tensor([1, 1, 0, 0, 0, 0]))
