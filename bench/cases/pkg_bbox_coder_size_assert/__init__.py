"""Rebuilt from https://github.com/open-mmlab/mmdetection/issues/8201 "meet an error when convert
TOOD pth to onnx" (mmdet's `delta2bbox`: `assert pred_bboxes.size(0) == bboxes.size(0)`, TracerWarnings
on the asserts; the boxes and the features share one dynamic count)

`coder.py` holds the delta coder; `head.py` the regression head.
"""
import torch

from .head import RegHead

N = torch.export.Dim("N", min=2, max=256)
model = RegHead()
example_args = (torch.randn(6, 16), torch.rand(6, 4) * 32)
dynamic_shapes = ({0: N}, {0: N})
