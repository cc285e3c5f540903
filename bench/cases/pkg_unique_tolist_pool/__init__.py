"""Rebuilt from https://github.com/pytorch/pytorch/issues/126685 "Dynamo fails to export
data-dependent `Tensor.tolist`" (`torch.unique(x).tolist()`: a list whose length depends on the
data, then used in Python)

`segments.py` holds a segment-mean pooling helper looping over the unique segment ids of its
input; `model.py` the head that pools token features by segment.
"""
import torch

from .model import SegmentPoolHead

model = SegmentPoolHead()
example_args = (torch.randn(10, 8), torch.tensor([0, 0, 1, 1, 1, 2, 2, 3, 3, 3]))
