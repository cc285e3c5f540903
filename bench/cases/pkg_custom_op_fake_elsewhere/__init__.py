"""Rebuilt from https://github.com/pytorch/pytorch/issues/141545
"Missing Fake/Meta/Abstract Kernels for Operators"

The fix the thread points to: register a fake kernel. The project keeps the op in `ops.py` and its
fake kernel in `fake.py` (imported by the package), and calls the op from `block.py`.
"""
import torch

from . import fake  # noqa: F401  (registers the fake kernel)
from .block import ScaledAct

model = ScaledAct()
example_args = (torch.randn(2, 8),)
