"""Rebuilt from https://github.com/pytorch/pytorch/issues/49005 "RuntimeError: Exporting the
operator var to ONNX opset version 10 is not supported."

A normalisation helper (`norms.py`) standardises features with `x.var(...)`; the block
(`block.py`) applies it. Exported with opset 10.
"""
import torch

from .block import NormBlock

model = NormBlock()
example_args = (torch.randn(2, 5, 8),)
opset_version = 10
