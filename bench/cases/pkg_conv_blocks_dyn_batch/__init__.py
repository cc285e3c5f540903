"""Rebuilt from https://github.com/pytorch/pytorch/issues/118289 "torch.export failed with dynamic
batch for simple convolution model" (a constraint violation on the batch dim, blamed on the CPU
convolution kernels' casing on 16, in torch 2.1)

`blocks.py` stacks conv/bn/relu blocks; the batch is declared dynamic up to 64.
"""
import torch

from .blocks import ConvNet

model = ConvNet()
example_args = (torch.randn(4, 3, 16, 16),)
dynamic_shapes = ({0: torch.export.Dim("batch", min=1, max=64)},)
