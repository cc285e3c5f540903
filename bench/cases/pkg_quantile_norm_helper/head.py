import torch.nn as nn

from .norm import quantile_clip


class RobustHead(nn.Module):
    def __init__(self, dim=64, noise=0.1):
        super().__init__()
        self.noise = noise
        self.fc = nn.Linear(dim, 8)

    def forward(self, x):
        x = quantile_clip(x, self.noise)
        return self.fc(x)
