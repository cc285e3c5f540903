import torch.nn as nn

from .branches import CountingGate


class GatedCounterNet(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.gate = CountingGate(dim)

    def forward(self, x):
        return self.gate(self.proj(x))
