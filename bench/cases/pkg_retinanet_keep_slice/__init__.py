"""Rebuilt from https://github.com/pytorch/pytorch/issues/108805 "Export torchvision detection model
retinanet_resnet50_fpn" (after the data-dependent selection of the kept detections, torch.export
stopped at `keep = keep[: self.detections_per_img]`, a "Slice with unbacked SymInt")

`postprocess.py` holds the per-image detection selection (score threshold instead of NMS, then the
cap on detections per image); `model.py` the classification/regression head calling it.
"""
import torch

from .model import TinyRetinaHead

model = TinyRetinaHead()
example_args = (torch.randn(1, 8, 6, 6),)
