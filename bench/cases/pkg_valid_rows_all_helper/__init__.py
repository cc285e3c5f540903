"""Rebuilt from https://github.com/pytorch/pytorch/issues/111134 "Can't export model to ONNX
because of aten::all operator" (torch 1.8 at the time)

A masking helper (`masking.py`) zeroes the rows whose features are not all finite with
`torch.all(..., dim=-1)`; the encoder (`encoder.py`) applies it. Believed to export today.
"""
import torch

from .encoder import Encoder

model = Encoder()
example_args = (torch.randn(2, 6, 4),)
