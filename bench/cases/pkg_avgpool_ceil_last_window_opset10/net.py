import torch.nn as nn

from .layers import CeilPool


class PoolNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 3, 1)
        self.pool = CeilPool()

    def forward(self, x):
        return self.pool(self.proj(x))
