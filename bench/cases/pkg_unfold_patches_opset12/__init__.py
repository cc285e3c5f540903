"""Rebuilt from https://github.com/pytorch/pytorch/issues/69889 "Exporting the operator unfold to ONNX
is not supported." (a custom two-input model, `torch.onnx.export(my_model, (im, im), ...,
opset_version=12)`, fails on `unfold`)

`patches.py` holds the patch extraction with `Tensor.unfold`; `model.py` the two-input matcher that
compares the patches of both images; static shapes as in the report.
"""
import torch

from .model import PatchMatcher

model = PatchMatcher()
example_args = (torch.randn(1, 3, 32, 16), torch.randn(1, 3, 32, 16))
opset_version = 12
