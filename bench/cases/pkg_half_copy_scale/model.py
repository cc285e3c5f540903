import torch.nn as nn

from .cast import cast_scaled


class CastScale(nn.Module):
    def forward(self, x):
        return cast_scaled(x, 2.0).sum(-1)
