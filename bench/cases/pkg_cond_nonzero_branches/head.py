import torch.nn as nn

from .select import kept_indices


class ScoreHead(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x):
        s = self.score(x).squeeze(-1)
        idx = kept_indices(s)
        return x[idx]
