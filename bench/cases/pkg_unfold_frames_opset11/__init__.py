"""Rebuilt from https://github.com/pytorch/pytorch/issues/57086 "torch.onnx.export cannot work with
torch.unfold when dynamic_axes is set" (`x.unfold(-1, 4, 2)` framing a signal whose length is a
dynamic axis, opset 11: "Couldn't export operator aten::unfold"; without dynamic axes it exports)

`framing.py` holds the framing helper; `frontend.py` the feature extractor using it.
"""
import torch

from .frontend import FrameFrontend

model = FrameFrontend()
example_args = (torch.randn(2, 64),)
dynamic_shapes = ({1: torch.export.Dim("T", min=16, max=512)},)
opset_version = 11
