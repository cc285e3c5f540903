import torch.nn as nn

from .blocks import WindowBlock


class StereoRefiner(nn.Module):
    def __init__(self, c=4, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([WindowBlock(c) for _ in range(depth)])

    def forward(self, x):
        for blk in self.blocks:
            x = x + blk(x)
        return x
