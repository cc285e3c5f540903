import torch.nn as nn

from .fourier import FourierFilter


class SpectralBackbone(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.filter = FourierFilter(c)
        self.head = nn.Conv2d(c, 4, 1)

    def forward(self, x):
        return self.head(self.filter(self.stem(x).relu()))
