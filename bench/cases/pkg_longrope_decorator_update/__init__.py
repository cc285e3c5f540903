"""Rebuilt from https://github.com/pytorch/pytorch/issues/163791 "torch.export fails on Phi-3.5
model" (transformers' `dynamic_rope_update` decorator calls `longrope_frequency_update`, which
branches on `seq_len = torch.max(position_ids) + 1` against the original context length)

`rope_utils.py` holds the decorator and the update; `rotary.py` the rotary embedding it wraps.
"""
import torch

from .rotary import LongRopeEmbedding

model = LongRopeEmbedding()
example_args = (torch.randn(1, 6, 16), torch.arange(6).unsqueeze(0))
