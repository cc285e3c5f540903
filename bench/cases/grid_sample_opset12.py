"""Rebuilt from https://github.com/tiny-smart/dysample/issues/5
"onnx export"

DySample's upsampler calls `F.grid_sample`; exporting with opset_version=12 gave
"UnsupportedOperatorError: Exporting the operator ::grid_sampler to ONNX opset version 12 is not
supported. Support for this operator was added in version 16".
"""
import torch
import torch.nn.functional as F


class DySampleLite(torch.nn.Module):
    def __init__(self, channels=4, scale=2):
        super().__init__()
        self.scale = scale
        self.offset = torch.nn.Conv2d(channels, 2 * scale * scale, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        offset = self.offset(x) * 0.25
        offset = F.pixel_shuffle(offset, self.scale)
        ys = torch.linspace(-1, 1, h * self.scale)
        xs = torch.linspace(-1, 1, w * self.scale)
        gy, gx = torch.meshgrid(ys, xs, indexing="ij")
        grid = torch.stack([gx, gy], dim=-1).unsqueeze(0) + offset.permute(0, 2, 3, 1)
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)


example_args = (torch.randn(1, 4, 8, 8),)
opset_version = 12
