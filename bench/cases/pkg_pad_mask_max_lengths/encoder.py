import torch.nn as nn

from .utils import make_pad_mask


class Encoder(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, x_lens):
        src_key_padding_mask = make_pad_mask(x_lens, x.size(1))
        x = self.proj(x)
        return x.masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0)
