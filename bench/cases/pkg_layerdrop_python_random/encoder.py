import random

import torch.nn as nn

from .layers import EncoderLayer


class Encoder(nn.Module):
    def __init__(self, num_layers=3, layerdrop=0.1):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer() for _ in range(num_layers)])
        self.layerdrop = layerdrop

    def forward(self, x):
        for layer in self.layers:
            dropout_probability = random.uniform(0, 1)
            if self.training and (dropout_probability < self.layerdrop):
                continue
            x = layer(x)
        return x
