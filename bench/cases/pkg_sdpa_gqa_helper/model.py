import torch.nn as nn

from .attention import sdpa_attention_forward


class GQABlock(nn.Module):
    def __init__(self, dim=16, heads=4, kv_heads=2):
        super().__init__()
        self.h, self.kvh, self.d = heads, kv_heads, dim // heads
        self.q = nn.Linear(dim, heads * self.d)
        self.kv = nn.Linear(dim, 2 * kv_heads * self.d)
        self.o = nn.Linear(heads * self.d, dim)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q(x).view(b, t, self.h, self.d).transpose(1, 2)
        k, v = self.kv(x).view(b, t, 2, self.kvh, self.d).permute(2, 0, 3, 1, 4)
        y = sdpa_attention_forward(q, k, v)
        return self.o(y.transpose(1, 2).reshape(b, t, -1))
