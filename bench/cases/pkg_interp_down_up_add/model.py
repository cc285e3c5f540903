import torch.nn as nn

from .resample import down_up


class DownUpResidual(nn.Module):
    def forward(self, x, y):
        x = down_up(x)
        x = x + y
        return x
