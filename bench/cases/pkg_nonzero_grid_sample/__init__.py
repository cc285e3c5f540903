"""Rebuilt from https://github.com/pytorch/pytorch/issues/152791
"Inconsistent export behavior for nonzero+grid_sample between CUDA and CPU/MPS backends"
("When exporting for cpu or mps, no error is thrown, but when using cuda, 'Could not guard on
data-dependent expression Eq(2*u0, 0)'")

The sampler (`sampling.py`) takes the active positions with `torch.nonzero` and samples the
feature map there with `grid_sample`; the model (`model.py`) calls it. Exported on CPU.
"""
import torch

from .model import ActiveSampler

model = ActiveSampler()
example_args = (torch.randn(1, 1, 16, 16), torch.randn(1, 1, 32, 32))
