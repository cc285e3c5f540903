"""Rebuilt from https://github.com/pytorch/pytorch/issues/115277 "HigherOrderOp graph capturing is
wrong for buffer mutation" (a `torch.cond` true branch updates a registered buffer in place,
`self.buffer.add_(5)`, before using it; export of the cond with a mutating branch)

`branches.py` holds the gate module whose branch functions are methods; `model.py` the model.
"""
import torch

from .model import GatedCounterNet

model = GatedCounterNet()
example_args = (torch.randn(3, 4),)
