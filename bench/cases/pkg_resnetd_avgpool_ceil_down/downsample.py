from functools import partial

import torch.nn as nn


class AvgDownsample(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        norm_layer = partial(nn.BatchNorm2d, eps=0.0009)
        self.avgpool = nn.AvgPool2d((2, 2), stride=2, ceil_mode=True, count_include_pad=False)
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1, bias=False)
        self.norm = norm_layer(out_channels)

    def forward(self, x):
        return self.norm(self.conv(self.avgpool(x)))
