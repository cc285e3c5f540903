"""Rebuilt from https://github.com/onnx/onnx/issues/2836 "TracerWarning: Converting a tensor to a
Python index might cause the trace to be incorrect" (the temporal shift module of
mit-han-lab/temporal-shift-module: `n_batch = nt // n_segment; x = x.view(n_batch, n_segment, c,
h, w)`, exported at opset 10 with a dynamic batch of frames)

`temporal_shift.py` holds the shift; `tsm.py` the residual block using it.
"""
import torch

from .tsm import TSMBlock

model = TSMBlock()
example_args = (torch.randn(8, 16, 8, 8),)
dynamic_shapes = ({0: torch.export.Dim("NT", min=4, max=64)},)
opset_version = 10
