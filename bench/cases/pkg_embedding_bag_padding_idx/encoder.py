import torch
import torch.nn as nn

from .embeddings import ResidueEmbedding


class ResidueEncoder(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.embed = ResidueEmbedding(dim=dim)
        self.head = nn.Linear(dim, 4)

    def forward(self, tokens, offsets):
        h = self.embed(tokens, offsets)
        return self.head(torch.tanh(h))
