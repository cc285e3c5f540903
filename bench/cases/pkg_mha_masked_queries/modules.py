import torch.nn as nn


class MemoryAttention(nn.Module):
    def __init__(self, dim=8, heads=2):
        super().__init__()
        self.mha = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm = nn.LayerNorm(dim)

    def forward(self, q, k, v, mask):
        q = q + self.mha(q, k, v, key_padding_mask=mask, need_weights=False)[0]
        return self.norm(q)
