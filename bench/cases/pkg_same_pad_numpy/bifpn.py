import torch.nn as nn

from .utils_extra import MaxPool2dStaticSamePadding


class BiFPNDown(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 1)
        self.down = MaxPool2dStaticSamePadding(3, 2)

    def forward(self, x):
        return self.down(self.conv(x))
