"""Rebuilt from https://github.com/idiap/coqui-ai-TTS/issues/315 "Onnx exported model outputs an audio of
fixed length" (VITS: the predicted durations give the output lengths, and the output mask's length
is read with `int(...)` of their maximum; the exported model always produces the dummy input's
length; fixed by not converting to `int`)

`masks.py` holds the sequence-mask helper; `model.py` the duration predictor and length regulator
stub; the token count is dynamic.
"""
import torch
from torch.export import Dim

from .model import DurationLengthRegulator

model = DurationLengthRegulator()
example_args = (torch.randn(1, 7, 8),)
dynamic_shapes = {"tokens": {1: Dim("t", min=2, max=64)}}
