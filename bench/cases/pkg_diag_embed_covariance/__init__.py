"""Rebuilt from https://github.com/onnx/onnx/issues/5142 "Exporting the operator 'aten::diag' to ONNX
opset version 17 is not supported" (a model builds diagonal matrices from predicted vectors; the
TorchScript-based exporter has no symbolic for it at any opset; see also
https://github.com/pytorch/pytorch/pull/110991 "Add aten::diag_embed to torchscript onnx exporter")

`gaussian.py` builds a diagonal covariance from predicted log-variances; `head.py` the Gaussian head.
"""
import torch

from .head import GaussianHead

model = GaussianHead()
example_args = (torch.randn(2, 16),)
opset_version = 17
