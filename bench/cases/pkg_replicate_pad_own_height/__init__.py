"""Rebuilt from https://github.com/microsoft/onnxscript/issues/2539 "Dynamic Padding bug, with a
minimal fix!" (`H = I.size(2)` with H a dynamic dim, then `torch.nn.functional.pad(I, (0, 0, 0, H),
mode="replicate")`, exported with `torch.onnx.export(..., dynamo=True, dynamic_shapes={"I": {2:
Dim("H")}})`; the reporter pads U-Nets for image denoising by a size read from the input)

`padding.py` holds the padding helper; `denoiser.py` the model padding before its convolution and
cropping back; H is dynamic.
"""
import torch
from torch.export import Dim

from .denoiser import Denoiser

model = Denoiser()
example_args = (torch.rand(1, 1, 4, 6),)
dynamic_shapes = {"I": {2: Dim("H", min=2, max=32)}}
