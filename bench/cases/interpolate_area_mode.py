"""Rebuilt from https://github.com/pytorch/pytorch/issues/41009
"Export to ONNX fails using F.interpolate with mode='area'"

The user's model downsamples with `F.interpolate(..., mode='area')`; the maintainers answered
that `area` mode "is not explicitly supported in ONNX spec" (it is adaptive average pooling).
Here the image pyramid of a detector, built in a helper, exported with dynamic height/width.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def build_pyramid(x, levels):
    out = [x]
    for _ in range(levels - 1):
        x = F.interpolate(x, scale_factor=0.5, mode="area")
        out.append(x)
    return out


class PyramidStem(nn.Module):
    def __init__(self, levels=3):
        super().__init__()
        self.levels = levels
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, images):
        feats = [self.conv(level).mean(dim=(2, 3)) for level in build_pyramid(images, self.levels)]
        return torch.cat(feats, dim=1)


example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = {"images": {2: torch.export.Dim("h", min=8, max=256), 3: torch.export.Dim("w", min=8, max=256)}}
