"""Rebuilt from https://github.com/pytorch/pytorch/issues/26103
"[ONNX] Export boolean indexing using where instead of Gather"

Boolean indexing `c = d[idx]` with `idx = b > 0.5`: the exported ONNX model was invalid
("Type 'tensor(bool)' of input parameter ... of operator (Gather) ... is invalid").
"""
import torch


class MaskSelect(torch.nn.Module):
    def forward(self, b, d):
        idx = b > 0.5
        c = d[idx]
        return c * 2


example_args = (torch.tensor([0.1, 0.9, 0.7, 0.2]), torch.randn(4, 3))
