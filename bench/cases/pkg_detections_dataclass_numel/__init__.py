"""Rebuilt from https://github.com/facebookresearch/detectron2/pull/5360 "feat: add torch.export
support to detector_postprocess and Boxes" (results held in a structure object, `Instances`,
whose fields are filtered by a mask; the post-processing then branches on how many are left)

`structures.py` defines a `Detections` dataclass; the head (`head.py`) stores the mask-selected
boxes and scores in it, and the model (`model.py`) branches on `dets.boxes.numel()`.
"""
import torch

from .model import Detector

model = Detector()
example_args = (torch.randn(12, 4), torch.randn(12, 6))
