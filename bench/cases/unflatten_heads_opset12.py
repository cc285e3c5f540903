"""Rebuilt from https://github.com/pytorch/pytorch/issues/124716
"torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::unflatten' to ONNX
opset version 12 is not supported."

The user's transformer model was exported with `opset_version=12`; its attention splits the
packed projection into heads with `unflatten` (the exporter added aten::unflatten at opset 13).
"""
import torch
import torch.nn as nn


class HeadSplitAttention(nn.Module):
    def __init__(self, dim=16, heads=4):
        super().__init__()
        self.heads = heads
        self.in_proj = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        qkv = self.in_proj(x).unflatten(-1, (3, self.heads, -1))
        q, k, v = qkv.unbind(2)
        attn = torch.einsum("bqhd,bkhd->bhqk", q, k).softmax(-1)
        y = torch.einsum("bhqk,bkhd->bqhd", attn, v).flatten(2)
        return self.out(y)


example_args = (torch.randn(2, 5, 16),)
opset_version = 12
