"""Rebuilt from https://github.com/Lightning-AI/lightning-thunder/pull/2530
"feat: provide guidance when registering custom op" (the thread's error: "There was no fake impl
registered for <CustomOpDef(mynamespace::func)> ... ret = torch.ops.mynamespace.func(a)")

The op is defined with `torch.library.custom_op` in `kernels.py` (imported by the package for
its registration) and the layer in `layer.py` calls it through `torch.ops.<ns>.<op>`.
"""
import torch

from . import kernels  # noqa: F401  (registers the op)
from .layer import RMSLayer

model = RMSLayer()
example_args = (torch.randn(2, 8),)
