"""Rebuilt from https://github.com/pytorch/pytorch/issues/148098 "onnx dynamo export does not support
aten bucketize" (a module mapping values to bins with `torch.bucketize` over a `linspace` of
boundaries)

`quantizer.py` holds the binning module (its boundaries a buffer); `model.py` the embedding model
that uses it.
"""
import torch

from .model import BinnedEmbedding

model = BinnedEmbedding()
example_args = (torch.rand(2, 10),)
