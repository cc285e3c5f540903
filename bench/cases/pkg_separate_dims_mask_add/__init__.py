"""Rebuilt from https://github.com/pytorch/pytorch/issues/126127 "torch.export.export() fails with
dynamic shapes when more than one shape is dynamic" (a BERT-style model exported with its own Dim for
each input's batch and sequence, `input_ids: {0: b1, 1: x1}, attention_mask: {0: b2, 1: x2}`; export
fails, suggesting `b1 = b2, x1 = x2`, because the model combines the two inputs)

`masking.py` turns the attention mask into an additive bias; `encoder.py` the encoder.
"""
import torch
from torch.export import Dim

from .encoder import TinyEncoder

model = TinyEncoder()
example_args = (torch.randint(0, 50, (2, 6)), torch.ones(2, 6, dtype=torch.long))
dynamic_shapes = {
    "input_ids": {0: Dim("batch_ids", min=2, max=16), 1: Dim("seq_ids", min=2, max=64)},
    "attention_mask": {0: Dim("batch_mask", min=2, max=16), 1: Dim("seq_mask", min=2, max=64)},
}
