"""Rebuilt from https://github.com/pytorch/pytorch/issues/96926 "torch.onnx.export failed for
models with Bernoulli operator" (torchvision's stochastic_depth in EfficientNet/ConvNeXt/Swin
blocks: `torch.bernoulli`/`bernoulli_` under `if not training: return input`)

`ops.py` holds the stochastic-depth function and module (training flag passed as an argument);
`blocks.py` the residual blocks. The model is exported in eval mode.
"""
import torch

from .blocks import Backbone

model = Backbone()
example_args = (torch.randn(1, 8, 16, 16),)
