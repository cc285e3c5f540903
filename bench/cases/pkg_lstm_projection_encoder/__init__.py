"""Rebuilt from https://github.com/k2-fsa/sherpa/issues/136 "Hi, wanna consult a dimension not right
question" (an LSTM transducer's encoder uses `nn.LSTM(..., proj_size=...)`; exporting it to ONNX
fails: "onnx does not support LSTM with projections"; the icefall workaround,
https://github.com/k2-fsa/icefall/pull/621, re-implements the projected LSTM in Python)

`layers.py` builds the projected LSTM stack; `encoder.py` the streaming encoder that runs it.
"""
import torch

from .encoder import LstmEncoder

model = LstmEncoder()
example_args = (torch.randn(2, 7, 16),)
opset_version = 17
