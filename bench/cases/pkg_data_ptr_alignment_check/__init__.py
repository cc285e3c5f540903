"""Rebuilt from https://github.com/pytorch/pytorch/issues/92580 "Improve Fake Tensor Error When Data Ptr
is Accessed" (code reading `tensor.data_ptr()`, here an alignment check before a fused kernel, fails under
tracing: fake tensors have no data pointer, and PT2 tracing now raises on `.data_ptr()`)

`cache.py` holds the alignment helper; `model.py` the module.
"""
import torch

from .model import CachedProjection

model = CachedProjection()
example_args = (torch.randn(2, 8),)
