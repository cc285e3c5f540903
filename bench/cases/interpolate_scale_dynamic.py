"""Rebuilt from https://github.com/pytorch/pytorch/issues/124884
"ONNX dynamic sized model export with torch.onnx.dynamo_export fails when
torch.nn.functional.interpolate is used"

A conv / LeakyReLU / `F.interpolate(x, scale_factor=2, mode="nearest")` / conv model exported with
`Dim("height", min=64)` and `Dim("width", min=64)` ("Onnx export fails here" at the interpolate;
the failure was in the exporter's type promotion pass and was fixed).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DummyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_down1 = nn.Conv2d(1, 16, 3, 1, 0)
        self.activation = nn.LeakyReLU(negative_slope=0.2, inplace=True)
        self.conv_up1 = nn.Conv2d(16, 1, 3, 1, 1)

    def forward(self, x):
        x = self.conv_down1(x)
        x = self.activation(x)
        x = F.interpolate(x, scale_factor=2, mode="nearest")
        x = self.conv_up1(x)
        x = self.activation(x)
        return x


example_args = (torch.randn(1, 1, 100, 100),)
dynamic_shapes = {"x": {2: torch.export.Dim("height", min=64, max=512), 3: torch.export.Dim("width", min=64, max=512)}}
