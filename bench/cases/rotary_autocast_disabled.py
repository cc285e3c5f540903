"""Rebuilt from https://github.com/pytorch/pytorch/issues/131829
"[export] Node.meta _enter_autocast is missing val field"

lucidrains' `rotary-embedding-torch` decorates its rotary forward with `@autocast(..., enabled=False)`
to keep the frequencies in float32; `torch.export.export(RotaryEmbedding(dim=12), ...)` failed in
the verifier on the autocast node (fixed upstream). Here the same decorated forward.
"""
import torch
import torch.nn as nn
from torch.amp import autocast


class RotaryEmbedding(nn.Module):
    def __init__(self, dim=12):
        super().__init__()
        self.register_buffer("freqs", 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)))

    @autocast("cpu", enabled=False)
    def forward(self, t):
        seq = torch.arange(t.shape[-2], dtype=torch.float32)
        freqs = torch.einsum("i,j->ij", seq, self.freqs)
        freqs = torch.cat((freqs, freqs), dim=-1)
        return t * freqs.cos() + t * freqs.sin()


example_args = (torch.rand(3, 8, 10, 12),)
dynamic_shapes = {"t": {2: torch.export.Dim("seq", min=2, max=128)}}
