"""Rebuilt from https://github.com/pytorch/pytorch/issues/22534
"RuntimeError: ONNX export failed: Couldn't export operator aten::one_hot"

`F.one_hot(..., num_classes=self.maxint)` with the class count kept as a module attribute (the
op lacked an ONNX symbolic at the time; one_hot exports since). Here the labels come in as the
input and the one-hot codes are mixed with a learned table.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TestMod(nn.Module):
    def __init__(self, maxint=10, dim=4):
        super().__init__()
        self.maxint = maxint
        self.table = nn.Linear(maxint, dim, bias=False)

    def forward(self, x):
        codes = F.one_hot(x, num_classes=self.maxint).float()
        return self.table(codes)


example_args = (torch.randint(0, 10, (3,)),)
