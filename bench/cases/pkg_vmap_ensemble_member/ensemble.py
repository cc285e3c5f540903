import torch.nn as nn
from torch.func import vmap

from .member import Member


class BatchedScorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Member()

    def forward(self, x):
        return vmap(self.model)(x)
