"""Rebuilt from https://github.com/pytorch/pytorch/issues/68974 "RuntimeError: Exporting the operator
roll to ONNX opset version 11 is not supported." (`torch.onnx.export(model.module, inputs, ...,
opset_version=11)` of a Swin-style model whose shifted-window block rolls the feature map)

`window_ops.py` holds the window partition/reverse helpers; `block.py` the shifted-window block that
rolls, partitions, mixes and rolls back; the input size is fixed.
"""
import torch

from .block import ShiftedWindowBlock

model = ShiftedWindowBlock()
example_args = (torch.randn(1, 8, 8, 16),)
opset_version = 11
