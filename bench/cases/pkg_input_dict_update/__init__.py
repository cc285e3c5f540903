"""Rebuilt from https://github.com/pytorch/pytorch/issues/147213 "export input dict mutation in strict
mode" (a forward that writes new entries into a dict it was given, `y.update({...})`, and returns it;
strict export failed on the input mutation)

`features.py` holds the helper adding derived features to the batch dict; `model.py` the module.
"""
import torch

from .model import FeatureAugmenter

model = FeatureAugmenter()
example_args = (torch.ones(3), {"a": torch.ones(3) * 10, "b": torch.ones(3) * 10})
