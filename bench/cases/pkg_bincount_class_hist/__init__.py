"""Rebuilt from https://github.com/pytorch/pytorch/issues/147094 "[torch.export]
torch._dynamo.exc.Unsupported: dynamic shape operator: aten.bincount.default" (a histogram of
predicted labels, weighted, computed with Tensor.bincount)

`stats.py` holds the histogram helper; `classifier.py` the model.
"""
import torch

from .classifier import HistClassifier

model = HistClassifier()
example_args = (torch.randn(5, 16),)
