"""Rebuilt from https://github.com/pytorch/pytorch/issues/131272 "ONNX: wrong operator for ceil_mode
Pooling in case of skip the last window" (`nn.AvgPool2d(kernel_size=(3, 3), stride=(3, 3),
padding=(1, 1), ceil_mode=True)` on a 2x2 input at opset 10: PyTorch skips a last window that would
start in the padding, the exported AveragePool keeps it, and the output shape differs)

`layers.py` holds the pooling layer of the reporter's model; `net.py` a small head around it;
opset 10.
"""
import torch

from .net import PoolNet

model = PoolNet()
example_args = (torch.rand(1, 3, 2, 2),)
opset_version = 10
