"""Rebuilt from https://github.com/pytorch/pytorch/issues/56905 "Exporting the operator outer to ONNX
opset version 13 is not supported." (a fairseq Transformer-XL model: its sinusoidal relative position
embedding is `torch.outer` of the position sequence and the inverse frequencies; exported at opset 13)

`pos_embedding.py` holds the position embedding module; `model.py` the layer adding it to its input.
"""
import torch

from .model import RelPosLayer

model = RelPosLayer()
example_args = (torch.randn(6, 2, 16),)
opset_version = 13
