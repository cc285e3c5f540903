import torch.nn as nn

from .modeling import EncoderLayer


class SentenceBody(nn.Module):
    def __init__(self, dim=8, depth=2):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(dim) for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x.mean(1)
