"""Rebuilt from https://github.com/pytorch/pytorch/issues/88286
"[ONNX] Throw _Map_base::at Exception When Exporting Module with torch.utils.checkpoint.checkpoint"

A block runs a submodule through `torch.utils.checkpoint.checkpoint` (gradient checkpointing to
save memory) unconditionally in `forward`; "couldn't export python method" reports
(pytorch#101689) trace to the same call.
"""
import torch
from torch.utils.checkpoint import checkpoint


class A(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.l1(x)


class B(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(2, 2)
        self.a = A()

    def forward(self, x):
        def custom():
            def custom_forward(x_):
                return self.a(x_)

            return custom_forward

        z = self.l1(checkpoint(custom(), x, use_reentrant=False))
        return z


example_args = (torch.randn(2, 2),)
model = B()
