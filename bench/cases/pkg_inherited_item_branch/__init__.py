"""Rebuilt from https://github.com/pytorch/executorch/issues/8988
"[Request Help] torch._dynamo.exc.UserError: Could not guard on data-dependent expression Eq(u77 - 1, 1)"

A count read with `.item()` chooses between two code paths. Here that logic is the `forward` of a
base class in `base.py`; the exported model (in `__init__`) only configures it.
"""
import torch

from .base import KeepOrPadBase


class KeepOrPad(KeepOrPadBase):
    def __init__(self):
        super().__init__(dim=4)


example_args = (torch.randn(5, 4), torch.tensor([1, 0, 1, 0, 0]))
