import torch
import torch.nn as nn


class CountingGate(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.register_buffer("hits", torch.zeros(dim))

    def _on(self, x):
        self.hits.add_(1.0)
        return x.cos() + self.hits

    def _off(self, x):
        return x.sin()

    def forward(self, x):
        return torch.cond(x.sum() > 0, self._on, self._off, (x,))
