"""Rebuilt from https://github.com/pytorch/pytorch/issues/148779
"[Export Benchmark] non-strict export doesn't work with .numpy on Kokoro model"
(the thread's error: "RuntimeError: .numpy() is not supported for tensor subclasses.")

The `.numpy()` calls of the report live in a shared helper (`audio_utils.py`) that the decoder
(`decoder.py`) applies to its input before its projection.
"""
import torch

from .decoder import Decoder

model = Decoder()
example_args = (torch.randn(10, 10),)
