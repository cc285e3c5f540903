"""Rebuilt from https://github.com/microsoft/onnxruntime/issues/2779 "The input tensor cannot be reshaped
to the requested shape" (a super-resolution model exported at opset 10 with `dynamic_axes` on H and
W: at another input size onnxruntime fails in a Reshape whose requested shape holds the example's
sizes)

`shuffle.py` holds the sub-pixel rearrangement, reading the sizes with `int()`; `model.py` the
upsampler; the image size is dynamic.
"""
import torch
from torch.export import Dim

from .model import SubPixelUpsampler

model = SubPixelUpsampler()
example_args = (torch.randn(1, 1, 24, 20),)
dynamic_shapes = {"x": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}}
opset_version = 10
