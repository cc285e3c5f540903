"""Rebuilt from https://github.com/pytorch/pytorch/issues/101397 "[ONNX] Support of AvgPool2D when
ceil_mode is True has disappeared with Torch 2.0" (a block whose shortcut pools with
`nn.AvgPool2d((2, 2), stride=2, ceil_mode=True, count_include_pad=False)` before a 1x1 conv and a
BatchNorm, exported with `torch.onnx.export`)

`downsample.py` holds the ResNet-D style average-pool shortcut; `block.py` the residual block using
it; the input has odd H and W, where `ceil_mode` adds a window.
"""
import torch

from .block import DownBlock

model = DownBlock(8, 16)
example_args = (torch.randn(2, 8, 9, 9),)
