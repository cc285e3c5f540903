import torch.nn as nn

from .ops import StochasticDepth


class Block(nn.Module):
    def __init__(self, dim, p):
        super().__init__()
        self.conv = nn.Conv2d(dim, dim, 3, padding=1)
        self.drop = StochasticDepth(p, "row")

    def forward(self, x):
        return x + self.drop(self.conv(x))


class Backbone(nn.Module):
    def __init__(self, dim=8, depth=3):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(dim, 0.1 * i) for i in range(depth)])

    def forward(self, x):
        return self.blocks(x)
