import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedSelfAttention(nn.Module):
    def __init__(self, hidden=32, heads=4):
        super().__init__()
        self.proj_q = nn.Linear(hidden, hidden)
        self.proj_k = nn.Linear(hidden, hidden)
        self.proj_v = nn.Linear(hidden, hidden)
        self.heads = heads
        self.head_dim = hidden // heads

    def forward(self, x):
        batch_size = x.shape[0]
        seq = x.shape[1]
        q = self.proj_q(x).view(batch_size, seq, self.heads, self.head_dim).transpose(1, 2)
        k = self.proj_k(x).view(batch_size, seq, self.heads, self.head_dim).transpose(1, 2)
        v = self.proj_v(x).view(batch_size, seq, self.heads, self.head_dim).transpose(1, 2)
        attn_mask = torch.ones(batch_size, 1, seq, seq, dtype=x.dtype, device=x.device)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        return out.transpose(1, 2).reshape(batch_size, seq, -1)
