"""Rebuilt from https://github.com/huggingface/transformers/pull/17711
"Make attention_mask axes dynamic when exporting onnx"

BERT-style attention extends the 2-D padding mask to `[:, None, None, :]` and fills the masked
scores with `torch.finfo(dtype).min`; the PR marks the mask's sequence axis dynamic like the
input ids'. Believed fine: the mask follows the input's sequence length.
"""
import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, hidden, attention_mask):
        b, t, d = hidden.shape
        q, k, v = self.qkv(hidden).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5
        mask = attention_mask[:, None, None, :]
        scores = scores.masked_fill(mask == 0, torch.finfo(scores.dtype).min)
        out = scores.softmax(-1) @ v
        return out.transpose(1, 2).reshape(b, t, d)


example_args = (torch.randn(2, 7, 16), torch.ones(2, 7, dtype=torch.long))
dynamic_shapes = {"hidden": {1: torch.export.Dim("seq", min=2, max=128)},
                  "attention_mask": {1: torch.export.Dim("seq", min=2, max=128)}}
