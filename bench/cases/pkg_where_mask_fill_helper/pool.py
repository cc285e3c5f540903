import torch.nn as nn

from .masking import masked_scores


class AttnPool(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x, attention_mask):
        s = self.score(x).squeeze(-1)
        s = masked_scores(s, attention_mask)
        w = s.softmax(-1)
        return (w.unsqueeze(-1) * x).sum(1)
