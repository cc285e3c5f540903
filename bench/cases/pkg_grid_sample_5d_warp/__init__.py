"""Rebuilt from https://github.com/warmshao/FasterLivePortrait/issues/95 "Grid sample 5D issue when
export pth to onnx" (LivePortrait's warping module samples a 3-D appearance feature volume with a
flow field; `torch.onnx.export` fails with "Unsupported: ONNX export of operator GridSample with 5D
volumetric input")

`warping.py` holds the warping network; `flow.py` the helper that warps the volume.
"""
import torch

from .warping import WarpingNetwork

model = WarpingNetwork()
example_args = (torch.randn(1, 8, 4, 8, 8), torch.rand(1, 4, 8, 8, 3) * 2 - 1)
opset_version = 17
