"""Rebuilt from https://github.com/pytorch/pytorch/issues/144907 "`torch.export` for Yolo Pose fails"
(ultralytics' `make_anchors` loops over a tensor of strides and calls
`torch.full((h * w, 1), stride)` with each 0-d stride tensor; strict export fails there, non-strict
passes)

`tal.py` holds the anchor helper; `head.py` the detection head that calls it.
"""
import torch

from .head import PoseHead

model = PoseHead()
example_args = ([torch.randn(1, 4, 8, 8), torch.randn(1, 4, 4, 4), torch.randn(1, 4, 2, 2)],)
