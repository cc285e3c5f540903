"""Rebuilt from https://github.com/pytorch/pytorch/pull/178513 "Fix interpolate nearest mode with
non-integer scale_factor" (fixes https://github.com/pytorch/pytorch/issues/175154: with
`mode='nearest'` and a non-integer `scale_factor` such as 1.3 the decomposition truncated instead of
flooring the source index and did not clamp it, so decomposed graphs gave other results than eager)

`upsample.py` holds the nearest upsampling helper with a configured non-integer factor;
`neck.py` the feature neck calling it.
"""
import torch

from .neck import Neck

model = Neck()
example_args = (torch.randn(1, 4, 10, 10),)
