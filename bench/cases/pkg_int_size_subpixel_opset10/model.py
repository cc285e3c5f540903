import torch.nn as nn

from .shuffle import pixel_shuffle


class SubPixelUpsampler(nn.Module):
    def __init__(self, r=3):
        super().__init__()
        self.r = r
        self.conv = nn.Conv2d(1, r * r, 3, padding=1)

    def forward(self, x):
        return pixel_shuffle(self.conv(x), self.r)
