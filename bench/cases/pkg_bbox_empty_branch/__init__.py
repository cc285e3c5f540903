"""Rebuilt from https://github.com/open-mmlab/mmdetection/issues/3504
"run pytorch2onnx.py error to visualize model sturcture." (TracerWarnings at
`post_processing/bbox_nms.py: if multi_bboxes.shape[1] > 4:` and
`bbox/transforms.py: if bboxes.shape[0] == 0:`)

The head (`head.py`) calls the NMS post-processing (`bbox_nms.py`), which keeps the boxes above
the score threshold and hands them to a box transform (`transforms.py`) that branches on
whether any box was kept.
"""
import torch

from .head import BBoxHead

model = BBoxHead()
example_args = (torch.randn(6, 8),)
