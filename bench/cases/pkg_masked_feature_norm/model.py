import torch.nn as nn

from .ops import normalize_rows


class GatedEmbedding(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, 1)

    def forward(self, x):
        feats = self.proj(x)
        keep = self.gate(x).squeeze(-1) > 0
        selected = feats[keep]
        return normalize_rows(selected)
