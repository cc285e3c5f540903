import torch.nn as nn

from .ops import clipped_gelu


class ScaledAct(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return clipped_gelu(self.fc(x), 2.0)
