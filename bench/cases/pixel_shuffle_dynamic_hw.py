"""Rebuilt from https://github.com/pytorch/pytorch/issues/34352
"torch.nn.PixelShuffle does not support dynamic_axes when using onnxruntime.InferenceSession.run?"

A super-resolution upsampler (conv then `nn.PixelShuffle(2)`) exported with batch, H and W
dynamic; in 2020 the legacy exporter baked the reshape sizes. Believed fine now.
"""
import torch
import torch.nn as nn


class Upsampler(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 12, 3, padding=1)
        self.shuffle = nn.PixelShuffle(2)

    def forward(self, x):
        return self.shuffle(self.conv(x))


example_args = (torch.randn(2, 3, 8, 8),)
dynamic_shapes = {"x": {0: torch.export.Dim("b", min=1, max=8), 2: torch.export.Dim("h", min=2, max=64),
                        3: torch.export.Dim("w", min=2, max=64)}}
