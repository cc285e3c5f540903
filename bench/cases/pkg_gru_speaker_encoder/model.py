import torch.nn as nn

from .encoder import RecurrentEncoder


class SpeakerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = RecurrentEncoder()
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        return self.head(self.encoder(x))
