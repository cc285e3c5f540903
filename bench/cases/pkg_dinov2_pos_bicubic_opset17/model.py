import torch
import torch.nn as nn

from .pos_embed import interpolate_pos_encoding


class TinyViT(nn.Module):
    def __init__(self, dim=16, patch=8, grid=4):
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)
        self.pos_embed = nn.Parameter(torch.randn(1, grid * grid, dim))

    def forward(self, x):
        h, w = x.shape[-2:]
        tokens = self.proj(x).flatten(2).transpose(1, 2)
        return tokens + interpolate_pos_encoding(self.pos_embed, h, w, self.patch)
