"""Rebuilt from https://github.com/pytorch/pytorch/issues/183528 "ONNX export mismatch for
`avg_pool2d` with `ceil_mode=True` and `count_include_pad=True`" (`F.avg_pool2d(x, kernel_size=3,
stride=2, padding=1, ceil_mode=True, count_include_pad=True)` exported at opset 18: onnxruntime
differs from eager in the right/bottom windows that `ceil_mode` adds)

`pooling.py` holds the stem's pooling helper; `model.py` the stem (conv, pool, conv); opset 18.
"""
import torch

from .model import PoolStem

model = PoolStem()
example_args = (torch.randn(1, 3, 8, 8),)
opset_version = 18
