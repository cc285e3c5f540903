"""Rebuilt from https://github.com/pytorch/pytorch/issues/113778 "Unsupported builtin operators for
torch.export.export" (`torch.tensor([math.ceil(x.item())])` and other Python builtins on `.item()`
values inside the exported function)

`stats.py` holds the helper rounding a scale up to a whole number of steps; `model.py` the module.
"""
import torch

from .model import StepScale

model = StepScale()
example_args = (torch.randn(2, 8), torch.tensor([2.3]))
