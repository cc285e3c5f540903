import torch.nn as nn

from .layers import DenseBlock


class DenseNet(nn.Module):
    def __init__(self, growth=4, memory_efficient=False):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.block = DenseBlock(2, 8, growth, memory_efficient=memory_efficient)
        self.head = nn.Conv2d(8 + 2 * growth, 2, 1)

    def forward(self, x):
        return self.head(self.block(self.stem(x)))
