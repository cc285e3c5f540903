"""Rebuilt from https://github.com/pytorch/pytorch/issues/160059
"torch.jit.script fails with 'undefined value' error when module has @torch.compiler.disable decorator"

A DETR-style detector marks helpers with `@torch.compiler.disable` (to keep `torch.compile`
from recompiling on variable target counts) and must still export to ONNX and PT2. Here a
gather helper marked that way, called from `forward`.
"""
import torch
import torch.nn as nn


@torch.compiler.disable
def gather_queries(x, idx):
    return x[idx]


class QuerySelector(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("idx", torch.tensor([2, 0, 1]))

    def forward(self, x):
        return self.fc(gather_queries(x, self.idx))


example_args = (torch.randn(3, 4),)
