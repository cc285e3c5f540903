"""Rebuilt from https://github.com/pytorch/pytorch/issues/156873 "Torch.onnx.export decomp error."
(`torch.repeat_interleave` with a tensor of repeats: "No ONNX function found for
<OpOverload(op='aten.repeat_interleave', overload='Tensor')>")

`expand.py` expands per-token features by predicted durations (a length regulator, as in
FastSpeech-style models); `model.py` rounds the durations and calls it.
"""
import torch

from .model import DurationExpander

model = DurationExpander()
example_args = (torch.randn(5, 8),)
