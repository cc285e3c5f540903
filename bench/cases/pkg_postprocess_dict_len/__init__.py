"""Rebuilt from https://github.com/IDEA-Research/DINO/issues/112 "A problem about PostProcess"
(the post-processor returns, per image, a dict `{'scores': s, 'labels': l, 'boxes': b}`) and
https://github.com/facebookresearch/detectron2/pull/5361 "add torch.export support to
detector_postprocess" (branches on the number of kept detections)

`postprocess.py` keeps the detections above a score threshold and returns one dict per image;
the detector (`detector.py`) reads the boxes back from the dict and branches on how many were kept.
"""
import torch

from .detector import DetrLike

model = DetrLike()
example_args = (torch.randn(1, 10, 3), torch.rand(1, 10, 4))
