"""Rebuilt from https://github.com/pytorch/pytorch/issues/153411 "[export] torch.tensor constructor
specializes on float value" (`scalar = flt.item()` then `torch.tensor([scalar])` fails torch.export
with a data-dependent error on the float)

`calibration.py` holds the temperature-scaling helper; `classifier.py` the classifier taking the
temperature as an input tensor.
"""
import torch

from .classifier import CalibratedClassifier

model = CalibratedClassifier()
example_args = (torch.randn(2, 16), torch.tensor([1.5]))
