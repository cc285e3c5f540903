"""Rebuilt from https://github.com/pytorch/pytorch/issues/36454 "TracerWarning: Converting a tensor to
a Python number might cause the trace to be incorrect" (a dynamic-filter layer folds the batch into
the channels, runs `F.conv_transpose2d(..., groups=N)` with per-sample kernels and views the result
back to `(N, oC, H, W)`; the trace warned at the conv and the view)

`dynconv.py` holds the per-sample transposed convolution; `model.py` the layer predicting the
kernels from a style vector; the batch is dynamic.
"""
import torch
from torch.export import Dim

from .model import DynamicFilterUp

model = DynamicFilterUp()
example_args = (torch.randn(2, 4, 8, 8), torch.randn(2, 16))
dynamic_shapes = {"x": {0: Dim("batch", min=2, max=16)}, "style": {0: Dim("batch", min=2, max=16)}}
