import torch.nn as nn

from .ops import gated


class GatedBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.a = nn.Linear(dim, dim)
        self.b = nn.Linear(dim, dim)

    def forward(self, x):
        return gated(self.a(x), self.b(x))
