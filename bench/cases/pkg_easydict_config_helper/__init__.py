"""Rebuilt from https://github.com/pytorch/pytorch/issues/120219
"torch._dynamo.exc.Unsupported: call_function args: UserDefinedObjectVariable(EasyDict)"
(an ExecuTorch user's trajectory model kept its config in an `EasyDict` and passed it along
in forward)

`config.py` defines the `EasyDict` (a dict with attribute access, as the `easydict` package
does); the model (`model.py`) keeps one and passes it to a helper in `layers.py`.
"""
import torch

from .model import TrajectoryNet

model = TrajectoryNet()
example_args = (torch.randn(2, 7, 4),)
