import torch.nn as nn

from .layers import ConvELU


class EluNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(ConvELU(3, 8), ConvELU(8, 8))
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x):
        return self.head(self.blocks(x))
