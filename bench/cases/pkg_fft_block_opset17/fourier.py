import torch
import torch.nn as nn


class FourierFilter(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(channels, 1, 1))

    def forward(self, x):
        spec = torch.fft.fft2(x, norm="ortho")
        mag = torch.abs(spec) * self.scale
        return x + mag
