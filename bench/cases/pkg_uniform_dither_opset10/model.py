import torch.nn as nn

from .noise import dither


class DitheredHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)
        self.amount = 1e-6

    def forward(self, x):
        return self.fc(dither(x, self.amount)).round()
