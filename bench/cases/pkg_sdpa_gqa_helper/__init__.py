"""Rebuilt from https://github.com/pytorch/pytorch/issues/162258
"export huggingface model to onnx get a enable_gqa error"

Qwen3-style attention: the model module calls a shared `sdpa_attention_forward` helper (in
`attention.py`, as transformers keeps it in `integrations/sdpa_attention.py`) that passes
`enable_gqa=True` and `is_causal=True` to scaled_dot_product_attention; the user exported with
the TorchScript-based exporter.
"""
import torch

from .model import GQABlock

model = GQABlock()
example_args = (torch.randn(1, 6, 16),)
