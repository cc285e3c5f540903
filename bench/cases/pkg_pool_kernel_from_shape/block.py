import torch
import torch.nn as nn

from .pooling import pool_to_grid


class GridAttentionBlock(nn.Module):
    def __init__(self, dim=8, grid=4):
        super().__init__()
        self.grid = grid
        self.qkv = nn.Conv2d(dim, dim * 3, 1)
        self.proj = nn.Conv2d(dim, dim, 1)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=1)
        k = pool_to_grid(k, self.grid).flatten(2)
        v = pool_to_grid(v, self.grid).flatten(2)
        attn = torch.softmax(q.flatten(2).transpose(1, 2) @ k, dim=-1)
        out = (attn @ v.transpose(1, 2)).transpose(1, 2).reshape(x.shape)
        return x + self.proj(out)
