import torch.nn as nn

from .cache import aligned


class CachedProjection(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        return self.proj(aligned(x)).relu()
