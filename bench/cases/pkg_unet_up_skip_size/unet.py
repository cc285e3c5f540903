import torch.nn as nn

from .up_block import UpBlock


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Conv2d(3, 4, 3, padding=1)
        self.enc2 = nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.up = UpBlock(8, 4, 4)
        self.head = nn.Conv2d(4, 2, 1)

    def forward(self, x):
        s1 = self.enc1(x).relu()
        s2 = self.enc2(s1).relu()
        return self.head(self.up(s2, s1))
