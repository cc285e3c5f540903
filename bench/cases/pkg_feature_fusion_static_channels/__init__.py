"""Rebuilt from https://github.com/ultralytics/yolov3/issues/1487 "transfer to ONNX have warning"
(`utils/layers.py:60: TracerWarning: Converting a tensor to a Python boolean ... if nx == na:
# same shape`)

The weighted feature fusion layer (`utils/layers.py`, re-exported by `utils/__init__.py`)
compares the channel counts of the features it adds; the neck (`neck.py`) fuses two branches
with different channel counts. Channels are static; exported with dynamic H/W. Believed to
export.
"""
import torch

from .neck import Neck

model = Neck()
example_args = (torch.randn(1, 4, 8, 8),)
dynamic_shapes = ({2: torch.export.Dim("h", min=2, max=64), 3: torch.export.Dim("w", min=2, max=64)},)
