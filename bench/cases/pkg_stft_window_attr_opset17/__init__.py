"""Rebuilt from https://github.com/pytorch/pytorch/issues/113067 "[ONNX] stft export fails with
dynamo_export" (an audio front end calls `signals.stft(n_fft=512, hop_length=160, win_length=320,
window=self._window, pad_mode="constant", return_complex=True)` with the Hann window kept as a
plain tensor attribute, a dynamic number of samples)

`features.py` holds the STFT magnitude helper; `model.py` the front end keeping the window; the
signal length is dynamic; exported at opset 17 (the first with an STFT operator).
"""
import torch
from torch.export import Dim

from .model import STFTFrontEnd

model = STFTFrontEnd()
example_args = (torch.randn(2, 4000),)
dynamic_shapes = {"signals": {1: Dim("samples", min=1000, max=16000)}}
opset_version = 17
