import torch
import torch.nn as nn

from .ops import resize_to


class UpBlock(nn.Module):
    def __init__(self, cin, cskip, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin + cskip, cout, 3, padding=1)

    def forward(self, x, skip):
        x = resize_to(x, skip)
        return self.conv(torch.cat([x, skip], dim=1)).relu()
