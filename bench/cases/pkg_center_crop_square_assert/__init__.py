"""Rebuilt from https://github.com/microsoft/onnxruntime/issues/679 "Invalid Tracer Warning about
tensor shape" (a CenterCrop module asserting `x.shape[2] == x.shape[3] and x.shape[2] >
self.crop_size + 2`, then slicing the centre; exported with H and W declared dynamic)

`crop.py` holds the crop module; `net.py` the model around it.
"""
import torch

from .net import CropNet

model = CropNet()
example_args = (torch.randn(1, 3, 24, 24),)
dynamic_shapes = ({2: torch.export.Dim("H", min=16, max=64), 3: torch.export.Dim("W", min=16, max=64)},)
