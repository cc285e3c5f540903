"""Rebuilt from https://github.com/pytorch/pytorch/issues/7732
"[feature request] Support output size parameter in Upsample ONNX operator"

Feature Pyramid Networks upsample a coarse map to the size of a finer one,
`F.upsample(h2, size=h1.size()[-2:], mode='bilinear')`, "very convenient if we want to evaluate
models with backward connections (like FPN) on inputs with varying sizes". Here a two-level FPN
top-down path with dynamic height and width.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TopDown(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.conv1 = nn.Conv2d(3, ch, kernel_size=3, stride=1, padding=1)
        self.conv2 = nn.Conv2d(3, ch, kernel_size=3, stride=2, padding=1)
        self.smooth = nn.Conv2d(ch, ch, 3, padding=1)

    def _upsample_add(self, coarse, fine):
        return F.interpolate(coarse, size=fine.size()[-2:], mode="bilinear", align_corners=False) + fine

    def forward(self, x):
        h1 = self.conv1(x)
        h2 = self.conv2(x)
        return self.smooth(self._upsample_add(h2, h1))


example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = {"x": {2: torch.export.Dim("h", min=8, max=256), 3: torch.export.Dim("w", min=8, max=256)}}
