import torch.nn as nn


class SpaceToDepthDown(nn.Module):
    def __init__(self, channels, factor=2):
        super().__init__()
        self.unshuffle = nn.PixelUnshuffle(factor)
        self.proj = nn.Conv2d(channels * factor * factor, channels * 2, 1)

    def forward(self, x):
        return self.proj(self.unshuffle(x))
