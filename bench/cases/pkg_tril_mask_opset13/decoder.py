import torch.nn as nn

from .masks import causal_mask


class DecoderBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(-1, -2)
        scores = scores.masked_fill(~causal_mask(x), float("-inf"))
        return scores.softmax(-1) @ self.v(x)
