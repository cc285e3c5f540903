"""Rebuilt from https://github.com/microsoft/onnxscript/issues/2539 "Dynamic Padding bug, with a
minimal fix!" (pads the input up to a multiple of 64 with `(64 - W % 64) % 64`, then a U-Net-like
encoder; torch.export: "Not all values of W ... satisfy the generated guard", suggested fix
`W = 64*_W`)

`padding.py` pads to the multiple; the network (`net.py`) downsamples three times and crops back.
Exported with dynamic H/W.
"""
import torch

from .net import PaddedNet

model = PaddedNet()
example_args = (torch.randn(1, 3, 70, 90),)
dynamic_shapes = ({2: torch.export.Dim("H", min=64, max=128), 3: torch.export.Dim("W", min=64, max=128)},)
