import math

import torch
import torch.nn as nn

from . import utils


class SinusoidalPositions(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        if utils.is_exporting():
            t = x.shape[1]
        else:
            t = x.size(1)
        half = self.dim // 2
        freq = torch.exp(torch.arange(half, dtype=torch.float32) * -(math.log(10000.0) / (half - 1)))
        pos = torch.arange(t, dtype=torch.float32)[:, None] * freq[None]
        return x + torch.cat([pos.sin(), pos.cos()], dim=-1)
