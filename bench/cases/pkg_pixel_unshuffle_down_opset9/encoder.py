import torch.nn as nn

from .blocks import SpaceToDepthDown


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Conv2d(1, 4, 3, padding=1)
        self.down1 = SpaceToDepthDown(4)
        self.down2 = SpaceToDepthDown(8)

    def forward(self, x):
        return self.down2(self.down1(self.inp(x)))
