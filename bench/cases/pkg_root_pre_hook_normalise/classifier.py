import torch
import torch.nn as nn

from .hooks import normalise_inputs


class HookedClassifier(nn.Module):
    def __init__(self, dim=8, classes=3):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("std", torch.ones(dim) * 2.0)
        self.fc = nn.Linear(dim, classes)
        self.register_forward_pre_hook(normalise_inputs)

    def forward(self, x):
        return self.fc(x)
