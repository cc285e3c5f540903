"""Rebuilt from https://github.com/pytorch/pytorch/issues/112718
"'aten::unique_consecutive' to ONNX opset version 14 is not supported"

A language model's decoder step deduplicates its cached keys and values along the time axis with
`past_keys.unique_consecutive(dim=2)` before attending ("unique_consecutive is not supported by
ONNX"); the user exported with opset 18.
"""
import torch
import torch.nn as nn


class CachedAttention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.q = nn.Linear(dim, dim)

    def forward(self, x, past_keys, past_values):
        past_keys = past_keys.unique_consecutive(dim=2)
        past_values = past_values.unique_consecutive(dim=2)
        attn = (self.q(x) @ past_keys.transpose(-1, -2)).softmax(-1)
        return attn @ past_values


_k = torch.randn(1, 2, 3, 8).repeat_interleave(2, dim=2)
example_args = (torch.randn(1, 2, 4, 8), _k, _k.clone())
opset_version = 18
