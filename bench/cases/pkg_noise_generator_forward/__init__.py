"""Rebuilt from https://github.com/pytorch/pytorch/issues/156811 "Allow to set a seed for random
tensors in torch.onnx.export" (a module draws its noise with a seeded generator in forward,
`noise = torch.rand(img.shape, generator=generator, dtype=img.dtype, device=img.device)`)

`augment.py` holds the dithering module built with its `torch.Generator`; `net.py` the network
using it (dithering scale 0 at inference, so the output does not depend on the draw).
"""
import torch

from .net import LightNet

model = LightNet()
example_args = (torch.rand(1, 3, 8, 8),)
