"""Rebuilt from https://github.com/pytorch/pytorch/issues/173659 "DataDependentOutputException:
aten.equal.default when exporting torch.quantile" (a module clipping its input to a pair of
quantiles built with torch.tensor from the noise level)

`norm.py` holds the robust normalisation helper; `head.py` the head that calls it.
"""
import torch

from .head import RobustHead

model = RobustHead()
example_args = (torch.randn(2, 64),)
