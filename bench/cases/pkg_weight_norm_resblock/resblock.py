import torch.nn as nn
import torch.nn.functional as F

from .norm import wn_conv1d


class ResBlock1(nn.Module):
    def __init__(self, channels=8, kernel_size=3, dilations=(1, 3, 5)):
        super().__init__()
        self.convs = nn.ModuleList([wn_conv1d(channels, kernel_size, d) for d in dilations])

    def forward(self, x):
        for conv in self.convs:
            x = x + conv(F.leaky_relu(x, 0.1))
        return x
