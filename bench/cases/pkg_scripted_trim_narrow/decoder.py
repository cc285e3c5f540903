import torch
import torch.nn as nn

from .trim import trim_2d


class UpMerge(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.merge = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        skip = x
        y = self.up(self.down(x))
        y = trim_2d(y, skip)
        return self.merge(torch.cat([y, skip], dim=1))
