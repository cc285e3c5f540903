import torch.nn as nn

from .attention import MaskedSelfAttention


class VisionEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = MaskedSelfAttention()

    def forward(self, x, bool_mask):
        x = x[bool_mask]  # only the real images: (u0, seq, hidden)
        return self.attn(x)
