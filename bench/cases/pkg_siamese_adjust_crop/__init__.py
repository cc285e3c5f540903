"""Rebuilt from https://github.com/STVIR/pysot/issues/125 "pysot model.pth to onnx occurred error"
(exporting the template branch of a Siamese tracker: the neck's adjust layer crops the centre 7x7 of
the template feature map when its width is under 20, `x = x[:, :, l:r, l:r]`, and the export printed
a TracerWarning at that line)

`neck.py` holds the adjust layer; `model.py` the template branch (backbone stem + neck); the template
size is fixed, as the tracker exports it.
"""
import torch

from .model import TemplateBranch

model = TemplateBranch()
example_args = (torch.randn(1, 3, 15, 15),)
