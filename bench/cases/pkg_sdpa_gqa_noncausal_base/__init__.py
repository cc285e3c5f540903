"""Rebuilt from https://github.com/pytorch/pytorch/issues/162258
"export huggingface model to onnx get a enable_gqa error"

Grouped-query attention with `enable_gqa=True` on scaled_dot_product_attention (bidirectional:
no `is_causal`), in the `attend` method of an attention base class (`base.py`) that the
encoder layer in `layer.py` inherits.
"""
import torch

from .layer import EncoderAttention

model = EncoderAttention()
example_args = (torch.randn(1, 6, 16),)
