"""Rebuilt from https://github.com/pytorch/pytorch/pull/72738
"[ONNX] Support embedding_renorm ONNX export"

`nn.Embedding(..., max_norm=...)` renormalises the looked-up rows in place (`embedding_renorm_`)
before gathering; the ONNX exporter had no symbolic for it until this PR. Here a token embedding
with `max_norm=1.0` followed by a projection.
"""
import torch
import torch.nn as nn


class TokenEncoder(nn.Module):
    def __init__(self, vocab=20, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, max_norm=1.0)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        return self.proj(self.embed(ids))


example_args = (torch.tensor([[1, 4, 7, 4], [2, 2, 9, 0]]),)
