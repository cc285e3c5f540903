"""Rebuilt from https://github.com/ultralytics/yolov5/issues/3396 "export" (`export.py` to ONNX printed
"TracerWarning: Converting a tensor to a Python boolean might cause the trace to be incorrect" at
`if self.grid[i].shape[2:4] != x[i].shape[2:4] or self.onnx_dynamic:` in `models/yolo.py`'s Detect
layer, which rebuilds its cached offset grid when the feature map size changes; see also
https://github.com/ultralytics/yolov5/pull/5437)

`general.py` holds the grid builder; `yolo.py` the Detect layer caching one grid per level and the
two-level model; the input H and W are dynamic (`--dynamic`).
"""
import torch
from torch.export import Dim

from .yolo import TinyYolo

model = TinyYolo()
example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = {"img": {2: Dim("h", min=16, max=64), 3: Dim("w", min=16, max=64)}}
