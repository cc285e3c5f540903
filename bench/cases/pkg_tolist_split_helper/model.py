import torch.nn as nn

from .utils import split_by_lengths


class PerItemPool(nn.Module):
    def forward(self, x, lengths):
        return split_by_lengths(x, lengths)
