import torch.nn as nn


class TokenToImageAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)

    def forward(self, src, tokens):
        keys = src.flatten(2).permute(0, 2, 1)
        attn = (self.q(tokens) @ self.k(keys).transpose(1, 2)).softmax(dim=-1)
        return attn @ self.v(keys), keys
