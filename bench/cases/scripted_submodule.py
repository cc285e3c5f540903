"""Rebuilt from https://github.com/pytorch/pytorch/issues/86261
"ONNX export of any TorchScript submodule (scripted or traced) fails with "Modules that are called
during a trace must be registered as submodules of the thing being traced""

The outer model keeps a submodule compiled with `torch.jit.script` in `__init__` (a common way
to speed up one block, as in radtts) and calls it in forward.
"""
import torch


class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.jit.script(Inner())
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.inner(x))


example_args = (torch.randn(3, 8),)
model = Outer()
