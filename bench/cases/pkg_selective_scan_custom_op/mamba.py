import torch
import torch.nn as nn
import torch.nn.functional as F

from .ops import selective_scan_fwd


class MambaBlock(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.in_proj = nn.Linear(dim, dim)
        self.dt_proj = nn.Linear(dim, dim)
        self.A = nn.Parameter(-torch.rand(dim))

    def forward(self, x):
        u = self.in_proj(x)
        delta = F.softplus(self.dt_proj(x))
        return selective_scan_fwd(u, delta, self.A)
