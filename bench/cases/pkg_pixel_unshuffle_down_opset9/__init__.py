"""Rebuilt from https://github.com/pytorch/pytorch/issues/51181 "Ability to export `pixel_unshuffle`
to ONNX" (`torch.nn.PixelUnshuffle(2)` exported with `torch.onnx.export` at opsets 9 to 13: "Exporting
the operator pixel_unshuffle to ONNX opset version N is not supported"; the reporter's use is the
lossless downsampling of U-Nets and super-resolution models)

`blocks.py` holds the space-to-depth downsampling block; `encoder.py` a two-level encoder; opset 9.
"""
import torch

from .encoder import Encoder

model = Encoder()
example_args = (torch.rand(1, 1, 8, 8),)
opset_version = 9
