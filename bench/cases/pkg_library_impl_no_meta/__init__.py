"""Rebuilt from https://github.com/pytorch/pytorch/issues/141545 "Missing Fake/Meta/Abstract
Kernels for Operators" (an operator defined with `torch.library` and only a CPU kernel; export
needs a fake impl)

`csrc/ops.py` defines the operator with a `torch.library.Library` fragment (`define` + `impl` for
CPU, no fake or Meta kernel), `csrc/__init__.py` imports it for its registration, and the layer
(`layer.py`) calls it as `torch.ops.<ns>.<op>`.
"""
import torch

from . import csrc  # noqa: F401  (registers the operator)
from .layer import GatedLayer

model = GatedLayer()
example_args = (torch.randn(2, 8),)
