import torch
import torch.nn as nn


class CustomLinear(nn.Module):
    def __init__(self, in_size, out_size):
        super().__init__()
        self.param = nn.Parameter(torch.randn(in_size, out_size))

    def forward(self, x):
        return torch.mm(x, self.param.data)
