import torch.nn as nn


class GLUBlock(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GLU())

    def forward(self, x):
        return x + self.ff(x)
