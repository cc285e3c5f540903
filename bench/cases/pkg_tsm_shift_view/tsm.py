import torch.nn as nn

from .temporal_shift import shift


class TSMBlock(nn.Module):
    def __init__(self, channels=16, n_segment=4):
        super().__init__()
        self.n_segment = n_segment
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        return x + self.conv(shift(x, self.n_segment))
