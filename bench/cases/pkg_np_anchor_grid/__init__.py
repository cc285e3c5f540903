"""Rebuilt from https://github.com/signatrix/efficientdet/issues/46 "TracerWarning: Converting a tensor
to a Python index might cause the trace to be incorrect" (EfficientDet's anchors are built with numpy
from `np.array(image_shape)` and turned back with `torch.from_numpy`; the trace bakes them in)

`anchors.py` holds the numpy anchor generator; `model.py` the head adding anchor centres to its
box offsets; the image size is dynamic.
"""
import torch
from torch.export import Dim

from .model import AnchorHead

model = AnchorHead()
example_args = (torch.randn(1, 3, 64, 64),)
dynamic_shapes = {"image": {2: Dim("h2", min=2, max=16) * 16, 3: Dim("w2", min=2, max=16) * 16}}
