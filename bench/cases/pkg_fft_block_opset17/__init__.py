"""Rebuilt from https://github.com/pytorch/pytorch/issues/149332 "ONNX: export failure: Exporting
the operator 'aten::fft_fft2' to ONNX opset version 17 is not supported." (a YOLO variant with a
frequency-domain block, exported at opset 17)

`fourier.py` holds the spectral filter block used by the backbone in `backbone.py`.
"""
import torch

from .backbone import SpectralBackbone

model = SpectralBackbone()
example_args = (torch.randn(1, 3, 16, 16),)
opset_version = 17
