"""Rebuilt from https://github.com/openvinotoolkit/mmdetection/issues/35 "Error while export pretrained
model to OpenVINO" (the export traced mmdetection's `multiclass_nms`: TracerWarnings at
`for i in range(num_classes)`, `if not cls_inds.any():` and `if multi_bboxes.shape[1] == 4:` in
`bbox_nms.py`)

`bbox_nms.py` holds the per-class score filtering loop (NMS itself left out); `model.py` the box head
calling it on the RoI features.
"""
import torch

from .model import BoxHead

model = BoxHead()
example_args = (torch.randn(16, 32),)
