"""Rebuilt from https://github.com/NVlabs/FoundationStereo/issues/81
"Preferred image size?"

DINOv2's `interpolate_pos_encoding` recovers the patch grid with `M = int(math.sqrt(N))` and
scale factors `float(w0 + offset) / M`; the ONNX export printed "TracerWarning: Converting a
tensor to a Python float" on those lines and the model was tied to the export resolution.
"""
import math

import torch
import torch.nn.functional as F


class PosEmbedInterp(torch.nn.Module):
    def __init__(self, dim=8, grid=4, patch=4):
        super().__init__()
        self.patch = patch
        self.pos_embed = torch.nn.Parameter(torch.randn(1, grid * grid, dim))
        self.proj = torch.nn.Conv2d(3, dim, patch, patch)

    def forward(self, x):
        h, w = x.shape[-2:]
        tokens = self.proj(x).flatten(2).transpose(1, 2)
        N = self.pos_embed.shape[1]
        M = int(math.sqrt(N))
        w0, h0 = w // self.patch, h // self.patch
        sx, sy = float(w0 + 0.1) / M, float(h0 + 0.1) / M
        pos = self.pos_embed.reshape(1, M, M, -1).permute(0, 3, 1, 2)
        pos = F.interpolate(pos, scale_factor=(sy, sx), mode="bicubic")
        return tokens + pos.permute(0, 2, 3, 1).reshape(1, -1, pos.shape[1])


example_args = (torch.randn(1, 3, 16, 16),)
dynamic_shapes = {"x": {2: 4 * torch.export.Dim("gh", min=2, max=64), 3: 4 * torch.export.Dim("gw", min=2, max=64)}}
