"""Rebuilt from https://github.com/pytorch/pytorch/issues/123592
"Dynamo unsupported: Dynamic slicing on data-dependent value is not supported"

A length read with `.item()` and used to narrow the input failed to export (the fix suggested in
the thread adds torch._check_is_size / torch._check bounds).
"""
import torch


class MySlice(torch.nn.Module):
    def forward(self, x, img_size):
        idx = img_size.item()
        x = x.narrow(0, 0, idx)
        return x


example_args = (torch.randn(10, 3, 8, 8), torch.tensor(5))
