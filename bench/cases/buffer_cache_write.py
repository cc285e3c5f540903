"""Rebuilt from https://github.com/pytorch/pytorch/issues/114967
"Inplace update to buffers doesn't work with `aot_compile`"

forward writes a statistic of the input into a registered cache buffer in place and returns
the input; the user's AOT compile of the exported program raised an AssertionError.
"""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 2))
        self.proj = torch.nn.Linear(5, 5)

    def forward(self, x):
        self.cache[0, 1] = x.sum()
        return self.proj(x)


example_args = (torch.ones(3, 5),)
