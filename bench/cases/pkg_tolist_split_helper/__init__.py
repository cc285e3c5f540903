"""Rebuilt from https://github.com/pytorch/pytorch/issues/149826
"Cannot handle dynamic output size with torch.onnx.export (through dynamo)"

The sizes come in as an integer tensor input and a shared helper (`utils.py`) turns them into a
list with `.tolist()` to split the sequence per item; the model calls the helper.
"""
import torch

from .model import PerItemPool

model = PerItemPool()
example_args = (torch.randn(7, 4), torch.tensor([3, 4]))
