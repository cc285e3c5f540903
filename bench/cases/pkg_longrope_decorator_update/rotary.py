import torch
import torch.nn as nn

from .rope_utils import dynamic_rope_update


class LongRopeEmbedding(nn.Module):
    def __init__(self, dim=16, original_max_position_embeddings=4):
        super().__init__()
        self.original_max_position_embeddings = original_max_position_embeddings
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("original_inv_freq", inv, persistent=False)
        self.register_buffer("long_inv_freq", inv / 4, persistent=False)
        self.inv_freq = inv

    @dynamic_rope_update
    def forward(self, x, position_ids):
        freqs = position_ids[..., None].float() * self.inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        return x * emb.cos() + x * emb.sin()
