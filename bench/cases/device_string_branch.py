"""Rebuilt from https://github.com/pytorch/pytorch/issues/153202
"Export + autocast is eating the exception"

The model picks a path from the input's device: `if "cuda" in str(x.device): mod = self.mod.to(x.device)
... else: return x.sum()`. Believed fine on the device the example lives on: the branch reads
the device, not the data.
"""
import torch
import torch.nn as nn


class BarModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.mod = nn.Linear(4, 4)

    def forward(self, x):
        if "cuda" in str(x.device):
            return self.mod(x.half()).float()
        else:
            return self.mod(x).sum(-1)


example_args = (torch.randn(4, 4, 4),)
