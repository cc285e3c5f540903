"""Rebuilt from https://github.com/pytorch/pytorch/issues/26034 "[ONNX] support masked_select
masked_fill and masked_scatter" (boxes filtered by `bbs.masked_select(conf > thresh)` in a
post-processing helper)

`postprocess.py` holds the filter; `detector.py` the head. Exported at opset 11.
"""
import torch

from .detector import BoxHead

model = BoxHead()
example_args = (torch.randn(1, 8, 16),)
opset_version = 11
