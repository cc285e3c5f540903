"""Rebuilt from https://github.com/pytorch/pytorch/issues/111676
"[export] self.buffer += 1 raises error"

A registered buffer updated in place in forward (`self.foo += x`) and returned; the user saw
"Mutating module attribute foo during export" from torch.export (`self.foo.add_(x)` worked).
"""
import torch


class Mod(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("foo", torch.ones(2, 3))

    def forward(self, x):
        self.foo += x
        return self.foo


example_args = (torch.ones(2, 3),)
