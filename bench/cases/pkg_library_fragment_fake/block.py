import torch
import torch.nn as nn


class SinBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.ops.exlcase10e.foo(self.fc(x))
