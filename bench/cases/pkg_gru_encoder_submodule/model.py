import torch.nn as nn

from .encoder import GRUEncoder


class GRUClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = GRUEncoder(19, 32)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        _, last = self.encoder(x)
        return self.head(last)
