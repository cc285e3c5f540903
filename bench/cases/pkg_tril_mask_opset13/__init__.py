"""Rebuilt from https://github.com/huggingface/optimum/pull/1331 "Fix opset custom onnx export"
(the tests failed with `torch.onnx.errors.UnsupportedOperatorError: Exporting the operator
'aten::tril' to ONNX opset version 13 is not supported. Support for this operator was added in
version 14`)

The causal mask is built with `torch.tril` in a shared masking module (`masks.py`); the decoder
block (`decoder.py`) applies it to its attention scores. Exported with opset 13.
"""
import torch

from .decoder import DecoderBlock

model = DecoderBlock()
example_args = (torch.randn(2, 5, 8),)
opset_version = 13
