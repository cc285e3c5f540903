"""Rebuilt from https://github.com/pytorch/pytorch/issues/141545
"Missing Fake/Meta/Abstract Kernels for Operators"

The documented fix, in a project layout: the op (`ops.py`, `torch.library.custom_op`) and its
fake kernel registered by name with `torch.library.register_fake("ns::op")` in `meta.py`; the
block in `block.py` calls the op's Python function.
"""
import torch

from . import meta  # noqa: F401  (registers the fake kernel)
from .block import GatedBlock

model = GatedBlock()
example_args = (torch.randn(2, 8),)
