"""Rebuilt from https://github.com/pytorch/pytorch/issues/140710 "torch.where(condition) resolves to
torch.where(condition, input, other) during export" (`torch.where(x > 0)` with one argument, a
dynamic batch, non-strict export failed where `torch.nonzero(..., as_tuple=True)` passed)

`select.py` holds the helper returning the positive entries' coordinates; `model.py` the module.
"""
import torch

from .model import PositiveCoords

model = PositiveCoords()
example_args = (torch.randn(4, 10),)
dynamic_shapes = {"x": {0: torch.export.Dim("batch_size", max=100)}}
