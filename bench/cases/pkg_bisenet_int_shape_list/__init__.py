"""Rebuilt from https://github.com/yakhyo/face-parsing/issues/7 "TraceWarning during onnx export"
(BiSeNet: `feat32_shape = [int(t) for t in feat32.size()[2:]]` handed to `F.interpolate(size=...)`,
and the attention refinement module's `F.avg_pool2d(feat, feat.size()[2:])`; exported with
dynamic H/W)

`modules.py` holds the conv block and the attention refinement module; `model.py` the context
path.
"""
import torch

from .model import ContextPath

model = ContextPath()
example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = ({2: torch.export.Dim("H", min=16, max=128), 3: torch.export.Dim("W", min=16, max=128)},)
