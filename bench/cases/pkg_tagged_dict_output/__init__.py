"""Rebuilt from https://github.com/pytorch/pytorch/issues/102084 "Documentation Error of torch.onnx"
(a module returning `'haha', {'output': output}`, a string beside a dict of tensors; tracing failed
with "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from traced
functions" although the docs said strings are dropped)

`heads.py` holds the head returning its task tag with its outputs; `model.py` the module.
"""
import torch

from .model import TaggedModel

model = TaggedModel()
example_args = (torch.randn(2, 4), torch.randn(2, 4))
