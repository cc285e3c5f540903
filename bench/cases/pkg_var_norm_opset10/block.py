import torch.nn as nn

from .norms import standardize


class NormBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return self.fc(standardize(x))
