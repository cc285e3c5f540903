"""Rebuilt from https://github.com/pytorch/pytorch/issues/31055 "ONNX exporter: issues with
F.interpolate" (`F.interpolate(x, size=(8, 8), mode="bilinear", align_corners=False)`: the exported
Resize did not match PyTorch)

`resize.py` holds the resize helper with a fixed output size; `model.py` the pooling head calling
it; the input size is dynamic.
"""
import torch
from torch.export import Dim

from .model import FixedGridHead

model = FixedGridHead()
example_args = (torch.randn(1, 3, 4, 4),)
dynamic_shapes = {"x": {2: Dim("h", min=2, max=32), 3: Dim("w", min=2, max=32)}}
opset_version = 11
