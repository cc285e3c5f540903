import torch.nn as nn

from .pooling import stem_pool


class PoolStem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 4, 1)

    def forward(self, x):
        x = self.conv1(x).relu()
        x = stem_pool(x)
        return self.conv2(x)
