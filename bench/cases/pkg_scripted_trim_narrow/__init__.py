"""Rebuilt from https://github.com/pytorch/pytorch/issues/27838 "ONNX: exporting model which uses
tensor sizes to compute padding" (a decoder trimming an upsampled map to the size of its skip
connection with a `@torch.jit.script` helper, `t.narrow(2, 0, sized.size(2)).narrow(3, 0,
sized.size(3))`, so that the trim follows the input size; the export failed in `narrow`)

`trim.py` holds the scripted trim helper; `decoder.py` the up-and-merge stage; H and W are dynamic.
"""
import torch
from torch.export import Dim

from .decoder import UpMerge

model = UpMerge()
example_args = (torch.randn(1, 4, 9, 11),)
dynamic_shapes = {"x": {2: Dim("h", min=5, max=64), 3: Dim("w", min=5, max=64)}}
