import torch.nn as nn

from .projector import ResizeProjector


class Detector(nn.Module):
    def __init__(self, ch=4):
        super().__init__()
        self.projector = ResizeProjector(ch, (12, 12), mode="bicubic", antialias=True)
        self.head = nn.Conv2d(ch, 2, 1)

    def forward(self, x):
        return self.head(self.projector(x))
