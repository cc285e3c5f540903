"""Rebuilt from https://github.com/pytorch/pytorch/issues/99692 "Exporting the operator 'aten::tile' to
ONNX opset version 17 is not supported" (a model repeating learned prototypes over the batch with
`Tensor.tile`, exported at opset 17)

`prototypes.py` holds the prototype bank; `model.py` the classifier that compares features to it;
the batch is dynamic.
"""
import torch
from torch.export import Dim

from .model import PrototypeClassifier

model = PrototypeClassifier()
example_args = (torch.randn(3, 16),)
dynamic_shapes = {"x": {0: Dim("batch", max=64)}}
opset_version = 17
