"""Rebuilt from https://github.com/pytorch/pytorch/issues/146315
"torch.export.export + dynamic shapes fails with x + y[::2]"

`x + y[::2]` with both inputs' dims dynamic ("This is expected ... Dim.DYNAMIC eases the burden
of specifying actual constraints"). Here the skip connection of a downsampling block, adding a
strided view of the full-resolution input to the stride-2 feature map.
"""
import torch
import torch.nn as nn


class DownBlock(nn.Module):
    def __init__(self, ch=4):
        super().__init__()
        self.conv = nn.Conv1d(ch, ch, 3, stride=2, padding=1)

    def forward(self, x, skip):
        return self.conv(x) + skip[:, :, ::2]


example_args = (torch.randn(1, 4, 16), torch.randn(1, 4, 16))
dynamic_shapes = {"x": {2: torch.export.Dim("l", min=4, max=256)}, "skip": {2: torch.export.Dim("ls", min=4, max=256)}}
