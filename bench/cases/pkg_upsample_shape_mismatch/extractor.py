import torch.nn as nn

from .submodule import Conv2xUp


class FeatureNet(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.down = nn.Conv2d(c, c, 3, stride=2, padding=1)
        self.up = Conv2xUp(c)

    def forward(self, x):
        return self.up(self.down(x), x)
