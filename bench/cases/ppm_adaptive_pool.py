"""Rebuilt from https://github.com/pytorch/pytorch/issues/64806
"onnx export failed when output size are not factor of input size for adaptive_avg_pool2d"

A pyramid pooling module (pool scales 1, 2, 3, 6) exported with dynamic height and width:
"Unsupported: ONNX export of operator adaptive_avg_pool2d, since output size is not factor of
input size".
"""
import torch
import torch.nn.functional as F


class PPM(torch.nn.Module):
    def __init__(self, channels=8, pool_scales=(1, 2, 3, 6)):
        super().__init__()
        self.ppm_pooling = torch.nn.ModuleList([torch.nn.AdaptiveAvgPool2d(s) for s in pool_scales])
        self.ppm_conv = torch.nn.ModuleList([torch.nn.Conv2d(channels, 4, 1) for _ in pool_scales])

    def forward(self, x):
        size = x.shape[2:]
        outs = [x]
        for pool, conv in zip(self.ppm_pooling, self.ppm_conv):
            outs.append(F.interpolate(conv(pool(x)), size=size, mode="bilinear", align_corners=False))
        return torch.cat(outs, dim=1)


example_args = (torch.randn(1, 8, 20, 20),)
dynamic_shapes = {"x": {2: torch.export.Dim("h", min=6, max=512), 3: torch.export.Dim("w", min=6, max=512)}}
