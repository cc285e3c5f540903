"""Rebuilt from https://github.com/idiap/coqui-ai-TTS/pull/390 "fix: don't convert to int to avoid
constant value in onnx exports" (fixes https://github.com/idiap/coqui-ai-TTS/issues/315: the VITS
model exported to ONNX always returned audio of the length of the dummy input; the export printed
"TracerWarning: Converting a tensor to a Python integer" where the output length, summed from the
predicted durations, was turned into a Python int)

`masks.py` holds the `sequence_mask` helper; `duration.py` the duration predictor expanding the text
encoding to frame lengths; the text length is dynamic.
"""
import torch
from torch.export import Dim

from .duration import DurationExpander

model = DurationExpander()
example_args = (torch.randn(1, 8, 10), torch.ones(1, 1, 10))
_t = Dim("t", min=2, max=64)
dynamic_shapes = {"x": {2: _t}, "x_mask": {2: _t}}
