"""Rebuilt from https://github.com/pytorch/pytorch/issues/45333 "ONNX export fails for
BatchNormalization with track_running_stats=False" (a conv block with
`nn.BatchNorm2d(32, track_running_stats=False)`, exported in eval mode at opset 12: "Node
(BatchNormalization_1)'s input 3 is marked single but has an empty string in the graph")

`blocks.py` holds the conv block; `net.py` the model.
"""
import torch

from .net import Net

model = Net()
example_args = (torch.randn(2, 3, 16, 16),)
opset_version = 12
