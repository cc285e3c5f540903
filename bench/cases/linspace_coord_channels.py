"""Rebuilt from https://github.com/pytorch/pytorch/issues/128494
"torch.onnx.export fails for torch.meshgrid with indexing='xy'"

The report builds a coordinate grid from `image.shape` in `forward`. Here the normalised
CoordConv form, `torch.linspace(-1, 1, h)` and `torch.linspace(-1, 1, w)` appended as two extra
channels, with the image's H/W declared dynamic.
"""
import torch
import torch.nn as nn


class AddCoords(nn.Module):
    def forward(self, x):
        b, c, h, w = x.shape
        ys = torch.linspace(-1, 1, h, device=x.device).view(1, 1, h, 1).expand(b, 1, h, w)
        xs = torch.linspace(-1, 1, w, device=x.device).view(1, 1, 1, w).expand(b, 1, h, w)
        return torch.cat([x, ys, xs], 1)


example_args = (torch.randn(2, 3, 5, 7),)
dynamic_shapes = {"x": {2: torch.export.Dim("h", min=2, max=64), 3: torch.export.Dim("w", min=2, max=64)}}
