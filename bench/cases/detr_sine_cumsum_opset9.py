"""Rebuilt from https://github.com/pytorch/pytorch/issues/43618
"RuntimeError: Unsupported: ONNX export of cumsum in opset 9. Please try opset version 11"

Converting DETR's graph with the default opset (9 at the time) failed in its sine position
embedding, which integrates the padding mask with `not_mask.cumsum(1, dtype=torch.float32)`.
"""
import math

import torch
import torch.nn as nn


class PositionEmbeddingSine(nn.Module):
    def __init__(self, num_pos_feats=8, temperature=10000):
        super().__init__()
        self.num_pos_feats = num_pos_feats
        self.temperature = temperature
        self.scale = 2 * math.pi

    def forward(self, x, mask):
        not_mask = ~mask
        y_embed = not_mask.cumsum(1, dtype=torch.float32)
        x_embed = not_mask.cumsum(2, dtype=torch.float32)
        y_embed = y_embed / (y_embed[:, -1:, :] + 1e-6) * self.scale
        x_embed = x_embed / (x_embed[:, :, -1:] + 1e-6) * self.scale
        dim_t = torch.arange(self.num_pos_feats, dtype=torch.float32)
        dim_t = self.temperature ** (2 * (dim_t // 2) / self.num_pos_feats)
        pos_x = x_embed[:, :, :, None] / dim_t
        pos_y = y_embed[:, :, :, None] / dim_t
        pos = torch.cat((pos_y, pos_x), dim=3).permute(0, 3, 1, 2)
        return x + pos


example_args = (torch.randn(1, 16, 6, 7), torch.zeros(1, 6, 7, dtype=torch.bool))
opset_version = 9
