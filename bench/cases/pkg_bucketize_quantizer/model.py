import torch.nn as nn

from .quantizer import UniformBinner


class BinnedEmbedding(nn.Module):
    def __init__(self):
        super().__init__()
        self.binner = UniformBinner(100)
        self.embed = nn.Embedding(101, 8)

    def forward(self, x):
        return self.embed(self.binner(x)).sum(1)
