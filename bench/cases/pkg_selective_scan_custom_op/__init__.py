"""Rebuilt from https://github.com/pytorch/pytorch/issues/130150 "Cannot Torch Export Forward
Pass of Mamba SSM" (the selective scan wrapped as `torch.library.custom_op(
"mamba_selective_scan::selective_scan_fwd", ...)` with a fake kernel, so that torch.export can
trace it)

`ops/selective_scan.py` defines the custom op and registers its fake kernel; `ops/__init__.py`
re-exports it; the Mamba block (`mamba.py`) calls it.
"""
import torch

from .mamba import MambaBlock

model = MambaBlock()
example_args = (torch.randn(1, 6, 4),)
