import torch.nn as nn

from .wrappers import MHAWrapper


class SetEncoder(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.attn = MHAWrapper(dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, mask):
        return self.out(x + self.attn(x, mask))
