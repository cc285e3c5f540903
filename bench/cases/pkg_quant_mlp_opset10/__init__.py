"""Rebuilt from https://github.com/pytorch/pytorch/issues/47217 "RuntimeError: Exporting the operator
quantize_per_tensor to ONNX opset version 10 is not supported." (an eager-mode post-training
quantized classifier, `torch.onnx.export(model, (dummy_input), ..., opset_version=10)`)

`quant_utils.py` holds the eager-mode post-training quantization step (qconfig, prepare, calibrate,
convert); `model.py` the classifier with its QuantStub/DeQuantStub; the export uses opset 10.
"""
import torch

from .model import SignClassifier
from .quant_utils import quantize_eager

model = quantize_eager(SignClassifier(), torch.randn(8, 16))
example_args = (torch.randn(1, 16),)
opset_version = 10
