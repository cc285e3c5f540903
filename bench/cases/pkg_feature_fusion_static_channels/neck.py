import torch.nn as nn

from .utils import WeightedFeatureFusion


class Neck(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.wide = nn.Conv2d(c, 2 * c, 1)
        self.narrow = nn.Conv2d(c, c, 1)
        self.fuse = WeightedFeatureFusion()

    def forward(self, x):
        return self.fuse(self.wide(x), self.narrow(x))
