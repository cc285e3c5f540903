"""Rebuilt from https://github.com/pytorch/pytorch/issues/147096 "[torch.export] Exporting
PaliGemma2 model fails due to data-dependent guarding issue" (`Could not guard on data-dependent
expression Ne(u0, 589824)`)

The multimodal model (`modeling.py`) merges the image features into the text embeddings with a
helper (`merging.py`) that checks the number of image-token positions against the features
before `masked_scatter`, as transformers' PaliGemma does.
"""
import torch

from .modeling import TinyPaliGemma

model = TinyPaliGemma()
example_args = (torch.tensor([[5, 1, 1, 7, 2]]), torch.randn(1, 2, 8))
