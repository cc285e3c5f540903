import torch.nn as nn

from .options import scale_of


class Scaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    def forward(self, x):
        return x * scale_of(x, self.scale)
