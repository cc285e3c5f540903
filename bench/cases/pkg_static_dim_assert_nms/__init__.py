"""Rebuilt from https://github.com/facebookresearch/Detic/issues/107 "Export Detic to ONNX or
Torchscript" (TracerWarnings at detectron2's `fast_rcnn.py: if num_bbox_reg_classes == 1:`
and `layers/nms.py: assert boxes.shape[-1] == 4`)

The box predictor (`fast_rcnn.py`) branches on the number of regression classes read from the
deltas' shape and calls a box helper in `layers/nms.py` (re-exported through
`layers/__init__.py`) that asserts the boxes have 4 coordinates. Both read static sizes: the
batch of proposals is dynamic. Believed to export.
"""
import torch

from .fast_rcnn import FastRCNNOutputs

model = FastRCNNOutputs()
example_args = (torch.randn(6, 8), torch.rand(6, 4) * 10)
dynamic_shapes = ({0: torch.export.Dim("n", min=2, max=64)}, {0: torch.export.Dim("n", min=2, max=64)})
