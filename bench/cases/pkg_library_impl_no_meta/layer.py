import torch
import torch.nn as nn


class GatedLayer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, 2 * dim)

    def forward(self, x):
        return torch.ops.exlcase10a.gated_act(self.fc(x))
