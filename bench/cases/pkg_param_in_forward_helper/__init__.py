"""Rebuilt from https://github.com/pytorch/pytorch/issues/126109 "torch._dynamo.export segfaults when
calling nn.Parameter" (a model wraps a freshly computed tensor in `nn.Parameter(...)` inside forward;
dynamo's export path cannot trace the Parameter construction)

`scaling.py` holds the helper that builds the learnable-looking scale on the fly; `net.py` the block.
"""
import torch

from .net import ScaledBlock

model = ScaledBlock()
example_args = (torch.randn(3, 16),)
