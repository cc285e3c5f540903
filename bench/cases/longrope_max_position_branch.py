"""Rebuilt from https://github.com/pytorch/pytorch/issues/163791
"torch.export fails on Phi-3.5 model"

Phi-3's LongRoPE picks its frequencies in `longrope_frequency_update`:
`seq_len = torch.max(position_ids) + 1` then `if seq_len > original_max_position_embeddings:`
("torch.export can't decide which branch to specialize"). Here the rotary module with both
frequency tables as buffers.
"""
import torch
import torch.nn as nn


class LongRopeRotaryEmbedding(nn.Module):
    def __init__(self, dim=8, original_max_position_embeddings=16):
        super().__init__()
        self.original_max_position_embeddings = original_max_position_embeddings
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("short_inv_freq", inv)
        self.register_buffer("long_inv_freq", inv / 4.0)

    def forward(self, x, position_ids):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.original_max_position_embeddings:
            inv_freq = self.long_inv_freq
        else:
            inv_freq = self.short_inv_freq
        freqs = position_ids[:, :, None].float() * inv_freq[None, None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return x * emb.cos() + x * emb.sin()


example_args = (torch.randn(1, 6, 8), torch.arange(6).unsqueeze(0))
