"""Rebuilt from https://github.com/ultralytics/yolov3/issues/766 "Convert onnx successfully but
has TracerWarnings" (`models.py:168: TracerWarning: Converting a tensor to a Python boolean
...  if (self.nx, self.ny) != (nx, ny):`, and `torch.tensor results are registered as
constants` at `self.ng = torch.tensor(ng, dtype=torch.float)`)

The YOLO layer (`models.py`) rebuilds its cached grid when the feature size changes; the grid
is made by `create_grids` in `utils/grids.py` (re-exported by `utils/__init__.py`). Exported
with dynamic H/W.
"""
import torch

from .models import YOLOLayer

model = YOLOLayer()
example_args = (torch.randn(1, 12, 8, 10),)
dynamic_shapes = ({2: torch.export.Dim("h", min=2, max=64), 3: torch.export.Dim("w", min=2, max=64)},)
