"""Rebuilt from https://github.com/Plachtaa/seed-vc/issues/148 "onnx vs weight norm" (a WaveNet /
HiFi-GAN style vocoder keeps `torch.nn.utils.parametrizations.weight_norm` on its convolutions when
exported to ONNX; the norm is recomputed in the graph)

`norm.py` wraps convolutions with the weight-norm parametrization; `resblock.py` the residual block.
"""
import torch

from .resblock import ResBlock1

model = ResBlock1()
example_args = (torch.randn(1, 8, 32),)
opset_version = 17
