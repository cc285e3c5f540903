"""Rebuilt from https://github.com/pytorch/pytorch/issues/182345 "`torch.export` fails when indexing
with a scalar tensor" (`operand[indices]` with `indices = torch.tensor(0)`, a 0-d integer tensor
passed as a model input; fixed by https://github.com/pytorch/pytorch/pull/184625)

`lookup.py` holds the helper picking one row of a table by a 0-d index tensor; `model.py` a
conditioning module choosing its class embedding by the label input.
"""
import torch

from .model import ClassConditioner

model = ClassConditioner()
example_args = (torch.randn(2, 8), torch.tensor(1))
