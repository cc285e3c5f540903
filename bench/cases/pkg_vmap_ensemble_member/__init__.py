"""Rebuilt from https://github.com/pytorch/pytorch/issues/153063 "export fails to trace with functorch"
(a module applies `torch.func.vmap(self.model)(x)` over a shared inner model to vectorise over the
batch; `torch.export.export` fails)

`member.py` holds the shared inner model; `ensemble.py` the module that vmaps it.
"""
import torch

from .ensemble import BatchedScorer

model = BatchedScorer()
example_args = (torch.randn(6, 8),)
