"""Rebuilt from https://github.com/pytorch/pytorch/issues/120626 "[export] `nn.GRU` fails to
`torch.export` due to unimplemented operator" (a module wrapping `nn.GRU(19, ...)`, exported with an
input of shape `(1, 40, 19)`)

`encoder.py` holds the GRU encoder submodule; `model.py` the classifier on its last state; static
shapes as in the report.
"""
import torch

from .model import GRUClassifier

model = GRUClassifier()
example_args = (torch.rand(1, 40, 19),)
