"""Rebuilt from https://github.com/pytorch/pytorch/issues/70886 "operator nan_to_num to ONNX"
(a Lightning model applying `torch.nan_to_num` to a linear layer's output; legacy export at opset 9:
"Exporting the operator nan_to_num to ONNX opset version 9 is not supported")

`sanitize.py` holds the cleaning helper; `model.py` the module.
"""
import torch

from .model import SimpleModel

model = SimpleModel()
example_args = (torch.randn(2, 64),)
opset_version = 9
