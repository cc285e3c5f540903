"""Rebuilt from https://github.com/pytorch/pytorch/issues/160547 "[export] Non-strict export fails when
tracing with NamedTuple input" (a `namedtuple('Point', 'x y')` of tensors as the model's input;
non-strict export failed where strict passed)

`points.py` holds the namedtuple; `model.py` the module that unpacks it.
"""
import torch

from .model import PointSum
from .points import Point

model = PointSum()
example_args = (Point(torch.ones(3), torch.ones(3)),)
