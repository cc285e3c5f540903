import torch
import torch.nn as nn

from .pos_embedding import PositionalEmbedding


class RelPosLayer(nn.Module):
    def __init__(self, d_model=16):
        super().__init__()
        self.pos_emb = PositionalEmbedding(d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x):
        qlen, bsz = x.size(0), x.size(1)
        pos_seq = torch.arange(qlen - 1, -1, -1.0, device=x.device, dtype=x.dtype)
        pos = self.pos_emb(pos_seq, bsz)
        return self.proj(x + pos)
