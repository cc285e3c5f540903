"""Rebuilt from https://github.com/ultralytics/ultralytics/pull/1516 "Pytorch2 compile (#1505)" (parts
of the model are wrapped with `torch.compile` for training speed; "the compiled models don't seem to
export correctly")

`ops.py` holds a bias-GELU helper decorated with `@torch.compile`; `mlp.py` the MLP that calls it.
"""
import torch

from .mlp import FusedMLP

model = FusedMLP()
example_args = (torch.randn(2, 5, 16),)
opset_version = 17
