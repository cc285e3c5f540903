"""Rebuilt from https://github.com/pytorch/pytorch/issues/73354 "Add the capability to export
GradMultiply to ONNX" (DistilHuBERT's upstream scales the convolutional feature extractor's gradient
with fairseq's `GradMultiply` autograd.Function in forward; `torch.onnx.export` failed with "Couldn't
export Python operator GradMultiply")

`grad_multiply.py` holds the autograd.Function; `model.py` the convolutional feature extractor and the
distiller front end applying it when `feature_grad_mult != 1.0`.
"""
import torch

from .model import DistillerFrontEnd

model = DistillerFrontEnd()
example_args = (torch.randn(1, 400),)
