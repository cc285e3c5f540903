"""Rebuilt from https://github.com/Graylab/DL4Proteins-notebooks/issues/12
"WS04: Attention uses the wrong scaling dimension"

The nanoGPT-style self-attention head of the notebook, with the fix the issue proposes:
scores scaled by the head size read from the key, `k.size(-1)**-0.5`, and the causal mask sliced
from a registered `tril` buffer to the current length `T`. Exported with a dynamic sequence.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Head(nn.Module):
    def __init__(self, n_embd=64, head_size=16, block_size=32):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)
        q = self.query(x)
        wei = q @ k.transpose(-2, -1) * k.size(-1) ** -0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        return wei @ self.value(x)


example_args = (torch.randn(2, 8, 64),)
dynamic_shapes = {"x": {1: torch.export.Dim("T", min=2, max=32)}}
