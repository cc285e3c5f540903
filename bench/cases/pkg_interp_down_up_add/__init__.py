"""Rebuilt from https://github.com/pytorch/pytorch/issues/131897 "Failed to export module with dynamic
shapes" (two bilinear `F.interpolate` calls, by `scale_factor=0.5` then `2.0`, and the result added to
a second input; both inputs' H and W share one `Dim("Dim", min=16, max=64)`)

`resample.py` holds the down/up resampling helper; `model.py` the module adding the second input.
"""
import torch
from torch.export import Dim

from .model import DownUpResidual

model = DownUpResidual()
example_args = (torch.rand(1, 1, 32, 32), torch.rand(1, 1, 32, 32))
_dim = Dim("Dim", min=16, max=64)
dynamic_shapes = {"x": {2: _dim, 3: _dim}, "y": {2: _dim, 3: _dim}}
