"""Rebuilt from https://github.com/open-mmlab/mmdetection/issues/3504
"run pytorch2onnx.py error to visualize model sturcture."

mmdetection's `multiclass_nms` helper (post_processing/bbox_nms.py) branches on
`multi_bboxes.shape[1] > 4` (class-specific or shared boxes); the TracerWarning there was one of
many in the log. The channel count is fixed by the head, the batch is dynamic.
"""
import torch

from .head import BoxHead

model = BoxHead()
example_args = (torch.randn(3, 8),)
dynamic_shapes = ({0: torch.export.Dim("n", min=2, max=100)},)
