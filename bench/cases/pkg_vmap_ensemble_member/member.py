import torch
import torch.nn as nn


class Member(nn.Module):
    def __init__(self, d_in=8, d_out=4):
        super().__init__()
        self.linear = nn.Linear(d_in, d_out)

    def forward(self, x):
        return torch.relu(self.linear(x))
