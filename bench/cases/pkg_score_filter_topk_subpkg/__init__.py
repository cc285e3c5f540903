"""Rebuilt from https://github.com/open-mmlab/mmdeploy/issues/2170
"[Bug] Error when converting RTM-det model to onnx" (TracerWarnings at
`yolov5_head.py: if scores.shape[0] == 0:` and `mmdet/models/utils/misc.py:
num_topk = min(topk, valid_idxs.size(0))`)

The head (`head.py`) calls `filter_scores_and_topk`, defined in `utils/misc.py` and re-exported
through `utils/__init__.py`; it keeps the scores above a threshold and takes the top
`min(topk, number kept)` of them. The head then branches on whether any score was kept.
"""
import torch

from .head import YOLOv5HeadPredict

model = YOLOv5HeadPredict()
example_args = (torch.randn(1, 20, 4),)
