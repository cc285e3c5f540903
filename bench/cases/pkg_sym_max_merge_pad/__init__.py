"""Rebuilt from https://github.com/pytorch/pytorch/issues/150851 "Cannot export
torch.sym_max(x.shape[0], y.shape[0])" (two inputs with independent dynamic dims merged into a
zero canvas of the larger size, `z[:x.shape[0], :x.shape[1]] = x; z[:y.shape[0], :y.shape[1]] += y`;
the report finds the exported program wrong or failing for other shapes)

`merge.py` holds the padding helper; `model.py` the module.
"""
import torch
from torch.export import Dim

from .model import MergeModel

model = MergeModel()
example_args = (torch.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(3, 2) * 10)
dynamic_shapes = ({0: Dim.DYNAMIC, 1: Dim.DYNAMIC}, {0: Dim.DYNAMIC, 1: Dim.DYNAMIC})
