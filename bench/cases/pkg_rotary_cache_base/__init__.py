"""Rebuilt from https://github.com/pytorch/pytorch/issues/115552 "torch.export.export fail to
export OpenLLama model" (the rotary embedding rebuilds its cos/sin cache when the sequence is
longer than the cached length: `if seq_len > self.max_seq_len_cached:
self._set_cos_sin_cache(seq_len)`)

The cache logic is in a base class (`rotary_base.py`); the attention (`attention.py`) uses a
subclass with a scaling factor. Exported with a dynamic sequence that stays within the cache.
Looks risky (a shape branch that would mutate buffers); believed to export fine here.
"""
import torch

from .attention import Attention

model = Attention()
example_args = (torch.randn(1, 6, 8),)
dynamic_shapes = ({1: torch.export.Dim("seq", min=2, max=32)},)
