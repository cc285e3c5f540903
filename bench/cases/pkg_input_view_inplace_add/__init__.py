"""Rebuilt from https://github.com/pytorch/pytorch/issues/112429 "torch.export does not work with input
mutation" (`x.view(3, 2, -1).add_(2.0)` on the forward's input, then returning it)

`ops.py` holds the helper shifting a view of its argument in place; `model.py` the module.
"""
import torch

from .model import ShiftInput

model = ShiftInput()
example_args = (torch.randn(12),)
