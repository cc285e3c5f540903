"""Rebuilt from https://github.com/pytorch/pytorch/issues/120075 "MultiheadAttention can not be
exported into onnx with dynamic shapes" (a wrapper around `torch.nn.MultiheadAttention(512, 8,
batch_first=False)` called with a boolean `attn_mask` and `need_weights=False`, exported with
`dynamic_axes` on the number of elements; the export warned "Removing mutation from node
aten::masked_fill_ on block input" and the model failed at other sizes)

`wrappers.py` holds the reporter's attention wrapper; `set_encoder.py` the set encoder using it; the
number of elements is dynamic (the mask's two dims with it).
"""
import torch
from torch.export import Dim

from .set_encoder import SetEncoder

model = SetEncoder()
_n = Dim("num_elem", min=2, max=64)
example_args = (torch.rand(12, 1, 32), torch.randint(0, 2, size=(12, 12), dtype=torch.bool).fill_diagonal_(False))
dynamic_shapes = {"x": {0: _n}, "mask": {0: _n, 1: _n}}
