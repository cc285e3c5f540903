"""Rebuilt from https://github.com/huggingface/setfit/issues/560 "Opset Issue while exporting to
onnx" (`UnsupportedOperatorError: Exporting the operator 'aten::scaled_dot_product_attention'
to ONNX opset version 12 is not supported. Support for this operator was added in version 14`)

The encoder's attention helper (`modeling/attention.py`) calls
`F.scaled_dot_product_attention`; the layer (`modeling/layer.py`) is re-exported through
`modeling/__init__.py`; the body is exported with opset 12, as SetFit's `export_onnx(...,
opset=12)` does.
"""
import torch

from .body import SentenceBody

model = SentenceBody()
example_args = (torch.randn(2, 6, 8),)
opset_version = 12
