"""Rebuilt from https://github.com/pytorch/pytorch/issues/33488 "Incomplete conversion from PyTorch
model to ONNX model" (pytoflow normalises each frame in a Python loop,
`for i in range(frames.size(1)): frames[:, i, :, :, :] = normalize(frames[:, i, :, :, :])`; the
traced ONNX model's input became fixed to the example's shape)

`preprocess.py` holds the per-frame normalisation; `model.py` the module; the number of frames is
dynamic.
"""
import torch
from torch.export import Dim

from .model import FrameNormNet

model = FrameNormNet()
example_args = (torch.rand(1, 4, 3, 8, 8),)
dynamic_shapes = {"frames": {1: Dim("frames", min=2, max=16)}}
