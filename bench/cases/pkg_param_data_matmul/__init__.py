"""Rebuilt from https://github.com/pytorch/pytorch/issues/170673 "`torch.export` Fails with
RuntimeError when Accessing Parameter via `.data` in `forward`" (a custom linear layer multiplying by
`self.param.data`; export fails with "Please file an issue on github")

`layers.py` holds the custom linear layer; `mlp.py` the model stacking two of them.
"""
import torch

from .mlp import TwoLayerMLP

model = TwoLayerMLP()
example_args = (torch.randn(4, 10),)
