import torch.nn as nn

from .activations import swish


class SwishBlock(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c)

    def forward(self, x):
        return swish(self.bn(self.conv(x))) + x
