"""Rebuilt from https://github.com/jantic/DeOldify/issues/166 "ONNX export failed on ATen operator mv"
(DeOldify's generator wraps its convolutions in `spectral_norm`, whose weight computation uses
`torch.mv` / `torch.dot`; export at opset 9 failed on `mv`)

`layers.py` builds the spectral-normalised convolutions (a helper called with constant sizes);
`generator.py` the model.
"""
import torch

from .generator import TinyGenerator

model = TinyGenerator()
example_args = (torch.randn(1, 3, 16, 16),)
opset_version = 9
