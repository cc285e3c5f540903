"""Rebuilt from https://github.com/open-mmlab/mmdetection/issues/4102 "Pytorch2onnx" (exporting a
YOLOv3 detector with `tools/pytorch2onnx.py`: TracerWarnings at `feat_h = int(feat_h)` and
`feat_w = int(feat_w)` in `mmdet/core/anchor/anchor_generator.py`, and at the `len()` of the shifts in
its meshgrid helper; the grid anchors were made dynamic in
https://github.com/open-mmlab/mmdetection/pull/4684)

`anchor_generator.py` holds the grid anchor generator; `head.py` the two-level head adding its box
deltas to the anchors; the input H and W are dynamic.
"""
import torch
from torch.export import Dim

from .head import AnchorHead

model = AnchorHead()
example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = {"img": {2: Dim("h", min=16, max=64), 3: Dim("w", min=16, max=64)}}
