import torch.nn as nn

from .resize import resize_to_grid


class FixedGridHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        return self.conv(resize_to_grid(x))
