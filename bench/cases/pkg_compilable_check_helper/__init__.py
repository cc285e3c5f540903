"""Rebuilt from https://github.com/huggingface/transformers/issues/44265 "torch.export.export fails
for models using torch_compilable_check (Mask2Former, DeformableDetr, etc.)" (fixed by
https://github.com/huggingface/transformers/pull/44266: `torch._check_with` breaks export tracing)

The multiscale deformable attention (`attention.py`) checks that the levels' spatial shapes
cover the sequence with `torch_compilable_check` from `utils/generic.py`, re-exported by
`utils/__init__.py`.
"""
import torch

from .attention import MultiscaleDeformableAttention

model = MultiscaleDeformableAttention()
example_args = (torch.randn(1, 20, 8), torch.tensor([[4, 4], [2, 2]]))
