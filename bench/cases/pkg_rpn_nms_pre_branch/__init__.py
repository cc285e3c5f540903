"""Rebuilt from https://github.com/open-mmlab/mmdetection/pull/4726 "[Feature]:add dynamic shape
support for two_stage func" (for ONNX export with dynamic input shapes, the RPN head's
`if scores.shape[0] > cfg.nms_pre:` branch before its top-k was replaced by a `torch.where` on the
shape: the traced branch fixed the choice made at the export size)

`rpn_head.py` holds the per-level proposal selection keeping the `nms_pre` best scores; `model.py` the
RPN head; the input H and W are dynamic.
"""
import torch
from torch.export import Dim

from .model import RPNHead

model = RPNHead()
example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = {"img": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}}
