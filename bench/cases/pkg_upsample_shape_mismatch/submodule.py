import torch
import torch.nn as nn
import torch.nn.functional as F


class Conv2xUp(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.up = nn.ConvTranspose2d(c, c, 4, stride=2, padding=1)
        self.conv = nn.Conv2d(2 * c, c, 3, padding=1)

    def forward(self, x, rem):
        x = self.up(x)
        if x.shape != rem.shape:
            x = F.interpolate(x, size=(rem.shape[-2], rem.shape[-1]), mode="nearest")
        return self.conv(torch.cat([x, rem], dim=1))
