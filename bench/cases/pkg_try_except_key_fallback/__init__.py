"""Rebuilt from https://github.com/pytorch/pytorch/issues/174166 "torch.compile does not support Python
try/except" (a forward whose `try:` reads an attribute that does not exist and falls back in
`except AttributeError:`; dynamo reported "Observed exception")

`options.py` holds the lookup helper with the fallback; `scaler.py` the module.
"""
import torch

from .scaler import Scaler

model = Scaler()
example_args = (torch.randn(3, 4),)
