import torch.nn as nn
import torch.nn.functional as F


class ResizeProjector(nn.Module):
    def __init__(self, ch, out_size, mode="bilinear", antialias=False):
        super().__init__()
        self.out_size = out_size
        self.mode = mode
        self.antialias = antialias
        self.proj = nn.Conv2d(ch, ch, 1)

    def forward(self, x):
        x = F.interpolate(x, size=self.out_size, mode=self.mode, antialias=self.antialias, align_corners=False)
        return self.proj(x)
