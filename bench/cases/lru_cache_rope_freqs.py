"""Rebuilt from https://github.com/huggingface/diffusers/pull/12211
"[QwenImage] Do not use `lru_cache` when compiling"

QwenImage's rotary embedding computes its frequencies in a method decorated with
`functools.lru_cache`, keyed by the frame/height/width of the latent; diffusers later added an
export-safe cache helper (PR 13290). Here the 2-D form with the input's H/W dynamic.
"""
import functools

import torch
import torch.nn as nn


class EmbedRope(nn.Module):
    def __init__(self, dim=8, theta=10000.0):
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / theta ** (torch.arange(0, dim, 2).float() / dim), persistent=False)

    @functools.lru_cache(maxsize=None)
    def _compute_freqs(self, height, width):
        pos = torch.arange(height * width, device=self.inv_freq.device).float()
        return torch.outer(pos, self.inv_freq)

    def forward(self, x):
        b, c, h, w = x.shape
        freqs = self._compute_freqs(h, w)
        return x.flatten(2).transpose(1, 2) * freqs.cos().repeat(1, 2)


example_args = (torch.randn(2, 8, 4, 6),)
dynamic_shapes = {"x": {2: torch.export.Dim("h", min=2, max=64), 3: torch.export.Dim("w", min=2, max=64)}}
