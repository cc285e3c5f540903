"""Rebuilt from https://github.com/pytorch/pytorch/issues/70497 "RuntimeError: Exporting the operator
uniform to ONNX opset version 10 is not supported" (a model drawing uniform noise in its forward,
exported with `opset_version=10` and a dynamic batch)

`noise.py` holds the dithering helper; `model.py` the module that calls it before its head.
"""
import torch

from .model import DitheredHead

model = DitheredHead()
example_args = (torch.randn(2, 16),)
dynamic_shapes = {"x": {0: torch.export.Dim("batch", max=64)}}
opset_version = 10
