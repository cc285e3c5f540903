"""Rebuilt from https://github.com/pytorch/pytorch/issues/128324 "ONNX dynamic sized model export with
torch.onnx.dynamo_export fails when .copy_() / roll / fftn is used" (USRNet's data step: `p2o` pads the
blur kernel to the image size with a slice `.copy_()`, rolls it by `-int(axis_size / 2)` along each
axis and takes `torch.fft.fftn`; the reporter exported with dynamic shapes)

`fft_utils.py` holds `p2o` and the zero-insertion upsampler; `model.py` the data module; the image
size is dynamic, the kernel fixed.
"""
import torch
from torch.export import Dim

from .model import DataNet

model = DataNet(sf=2)
example_args = (torch.randn(1, 1, 12, 16), torch.randn(1, 1, 5, 5))
dynamic_shapes = {"x": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}, "k": None}
