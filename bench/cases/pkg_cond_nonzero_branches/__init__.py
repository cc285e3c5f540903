"""Rebuilt from https://github.com/pytorch/pytorch/issues/144691 "torch.cond + torch.non_zero does
not work with torch.export.export" (both branches of a `torch.cond` return `nonzero` indices, whose
lengths depend on data)

`select.py` picks the indices of the kept scores with `torch.cond`; `head.py` gathers them.
"""
import torch

from .head import ScoreHead

model = ScoreHead()
example_args = (torch.randn(6, 4),)
