import torch.nn as nn

from .ranking import sort_scores


class RankHead(nn.Module):
    def __init__(self, dim=16, keep=3):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.keep = keep

    def forward(self, x):
        scores = self.score(x).squeeze(-1)
        values, order = sort_scores(scores, self.keep)
        return values, order
