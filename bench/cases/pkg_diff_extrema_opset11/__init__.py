"""Rebuilt from https://jishuzhan.net/article/2060301632897888258 (a sleep-staging model exported with
`torch.onnx.export(..., opset_version=11)`: "Exporting the operator diff to ONNX opset version 11 is
not supported", raised in a custom helper `find_extrema_3d_corrected` at
`diff = torch.diff(data_flat, dim=1)`)

`signal_ops.py` holds the extrema helper; `model.py` the feature extractor that calls it on the
EEG epochs; static shapes.
"""
import torch

from .model import EpochFeatureExtractor

model = EpochFeatureExtractor()
example_args = (torch.randn(1, 4, 1, 32),)
opset_version = 11
