"""Rebuilt from https://github.com/pytorch/pytorch/issues/176349 "Exporting a module with dynamic shape
an example input the shape shape as the min boundry causes a failure" (`torch.relu(x @ x.T)` with
`Dim("batch", min=1, max=32)` and an example batch of 1)

`kernels.py` holds the similarity helper; `model.py` the embedding head calling it; the batch is
declared dynamic from 1 and the example has batch 1.
"""
import torch
from torch.export import Dim

from .model import SimilarityHead

model = SimilarityHead()
example_args = (torch.randn(1, 32),)
dynamic_shapes = {"x": {0: Dim("batch", min=1, max=32)}}
