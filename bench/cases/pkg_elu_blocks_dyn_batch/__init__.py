"""Rebuilt from https://github.com/pytorch/pytorch/issues/129530 "Dynamo export: unsupported FX
node 'aten.expm1.default'" (a network with `nn.ELU` activations: dynamo decomposed elu into
expm1, which the ONNX exporter could not translate then)

`layers/blocks.py` holds the conv/ELU block, re-exported by `layers/__init__.py`; `net.py` the
network stacking them, exported with a dynamic batch.
"""
import torch

from .net import EluNet

model = EluNet()
example_args = (torch.randn(2, 3, 16, 16),)
dynamic_shapes = ({0: torch.export.Dim("batch", min=1, max=32)},)
