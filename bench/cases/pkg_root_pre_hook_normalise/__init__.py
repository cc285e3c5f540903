"""Rebuilt from https://github.com/pytorch/pytorch/issues/167329 "torch.export: unclear error when
model has forward_pre_hook" (a forward pre-hook registered on the exported module itself makes
torch.export fail with "Tried to emit a second graph during export")

`hooks.py` holds the input-normalising pre-hook; `classifier.py` the model that registers it on itself.
"""
import torch

from .classifier import HookedClassifier

model = HookedClassifier()
example_args = (torch.randn(2, 8),)
