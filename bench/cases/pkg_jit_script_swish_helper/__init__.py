"""Rebuilt from https://github.com/pytorch/pytorch/pull/155180 "[export] inline jit.scripted function
in export" (models keep `@torch.jit.script` activation helpers from the TorchScript era, e.g.
EfficientDet's swish; exporting a model that calls a scripted function with torch.export)

`activations.py` holds the scripted swish; `blocks.py` the MBConv-like block calling it.
"""
import torch

from .blocks import SwishBlock

model = SwishBlock()
example_args = (torch.randn(1, 4, 8, 8),)
