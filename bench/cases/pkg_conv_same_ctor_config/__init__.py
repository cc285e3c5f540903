"""Rebuilt from https://github.com/pytorch/pytorch/issues/68880 "Setting 'padding' to a string
will fail exporting Conv2d operator to ONNX" (`Exporting the operator _convolution_mode to ONNX
opset version X is not supported`)

The conv block (`blocks.py`) takes its padding from its constructor; the encoder (`encoder.py`)
builds its blocks from a config dict in `config.py` whose padding is the string "same".
"""
import torch

from .encoder import Encoder

model = Encoder()
example_args = (torch.randn(1, 2, 16, 16),)
