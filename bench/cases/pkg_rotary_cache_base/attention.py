import torch
import torch.nn as nn

from .rotary_base import RotaryEmbeddingBase


class LinearScalingRotary(RotaryEmbeddingBase):
    def __init__(self, dim, scaling_factor=2.0):
        self.scaling_factor = scaling_factor
        super().__init__(dim)

    def _scale(self, t):
        return t / self.scaling_factor


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.rotary = LinearScalingRotary(dim)

    def forward(self, x):
        q = self.q(x)
        cos, sin = self.rotary(q, seq_len=x.shape[1])
        return q * cos + rotate_half(q) * sin
