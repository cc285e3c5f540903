import torch.nn as nn

from .blocks import ConvBNReLU


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = ConvBNReLU(3, 8)
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        return self.pool(self.block(x)).flatten(1)
