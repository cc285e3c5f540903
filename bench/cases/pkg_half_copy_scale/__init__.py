"""Rebuilt from https://github.com/pytorch/pytorch/issues/131679 "torch.export() fails on
aten.to(..., copy=True) followed by mutation" (`y = x.to(dtype=..., copy=True); y.mul_(2)`)

`cast.py` holds the helper casting a copy and scaling it in place; `model.py` the module.
"""
import torch

from .model import CastScale

model = CastScale()
example_args = (torch.randn(4, 8),)
