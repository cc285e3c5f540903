"""Rebuilt from https://github.com/pytorch/pytorch/issues/109369 "UnsupportedOperatorError:
Exporting the operator 'aten::lgamma' to ONNX opset version 18 is not supported." (a model whose
output uses `torch.lgamma`, exported with `torch.onnx.export(..., opset_version=18)`)

`likelihoods.py` holds a negative-binomial log-likelihood (the usual place for `lgamma` in model
code, e.g. count decoders); `decoder.py` the decoder scoring observed counts; opset 18.
"""
import torch

from .decoder import CountDecoder

model = CountDecoder(6, 10)
example_args = (torch.randn(4, 6), torch.randint(0, 20, (4, 10)).float())
opset_version = 18
