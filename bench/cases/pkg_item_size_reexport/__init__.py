"""Rebuilt from https://github.com/pytorch/pytorch/issues/123592
"Dynamo unsupported: Dynamic slicing on data-dependent value is not supported"

The length read with `.item()` lives in a layers helper (`layers/crop.py`), re-exported by
`layers/__init__.py`, and the model imports it from the `layers` package.
"""
import torch

from .model import CropModel

model = CropModel()
example_args = (torch.randn(3, 10), torch.tensor(4))
