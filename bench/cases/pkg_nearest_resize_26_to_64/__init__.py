"""Rebuilt from https://github.com/microsoft/onnxruntime/issues/28085 "Bug: nearest resize 1->64
(scale=64/26) produces pixel selection one off vs PyTorch." (`F.interpolate(x, size=(1, 64),
mode="nearest")` of a width-26 map: the ONNX Resize selects other source pixels than PyTorch for 12
of the 64 outputs; see also https://github.com/microsoft/onnxruntime/issues/28310)

`resample.py` holds the helper resizing a feature row to a fixed width; `head.py` a head that
resizes its 26-wide projection to 64 columns.
"""
import torch

from .head import RowHead

model = RowHead()
example_args = (torch.arange(26, dtype=torch.float32).reshape(1, 1, 1, 26),)
