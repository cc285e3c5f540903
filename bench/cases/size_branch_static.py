"""Rebuilt from https://github.com/onnx/onnx/issues/4298
"Getting TracerWarning when I am trying to convert a pyTorch model to ONNX"

VisionLAN's ResNet compares feature sizes and resizes on mismatch; the ONNX export (static
shapes) printed "TracerWarning: Converting a tensor to a Python boolean" at
`if x.size()[2:] != tmp_shape:`.
"""
import torch
import torch.nn.functional as F


class ResBlockAlign(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 4, 3, stride=2, padding=1)
        self.skip = torch.nn.Conv2d(4, 4, 1)

    def forward(self, x):
        tmp_shape = x.size()[2:]
        y = self.conv(x)
        if y.size()[2:] != tmp_shape:
            y = F.interpolate(y, size=tmp_shape, mode="nearest")
        return y + self.skip(x)


example_args = (torch.randn(1, 4, 16, 16),)
