"""Rebuilt from https://github.com/pytorch/pytorch/issues/141545
"Missing Fake/Meta/Abstract Kernels for Operators"

The user wraps a reference kernel as a `torch.library.custom_op` in the project's `ops` module
(no fake kernel registered) and calls it from a layer in another module; torch.export needs a
fake implementation to trace it.
"""
import torch

from .block import ScaledAct

model = ScaledAct()
example_args = (torch.randn(2, 8),)
