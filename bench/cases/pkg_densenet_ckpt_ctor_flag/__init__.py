"""Rebuilt from https://github.com/pytorch/pytorch/issues/40912 "torch.jit.TracingCheckError:
Tracing failed sanity checks! When I am using torch.utils.checkpoint ?" (a DenseNet-style layer
runs its bottleneck through `cp.checkpoint(bn_function, x)` built by `_bn_function_factory`)

The dense layer (`layers.py`) checkpoints its bottleneck when `memory_efficient` is set; the flag
travels from the network's constructor (`densenet.py`, built with `memory_efficient=True` here)
through the block's constructor to each layer.
"""
import torch

from .densenet import DenseNet

model = DenseNet(memory_efficient=True)
example_args = (torch.randn(1, 3, 16, 16),)
