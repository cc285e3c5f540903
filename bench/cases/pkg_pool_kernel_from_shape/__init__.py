"""Rebuilt from https://github.com/ultralytics/ultralytics/issues/16391 "how can I export onnx when I
have dynamic block" (a transformer block added to a YOLO model whose pooling kernel sizes come from
the feature map's size: "Failed to export a node ... onnx::Sub ..., because it is not constant.
Please try to make things (e.g. kernel sizes) static if possible.")

`block.py` pools the feature map to a fixed grid with a kernel computed from its H/W, in a helper
of `pooling.py`. Exported with dynamic H/W.
"""
import torch

from .block import GridAttentionBlock

model = GridAttentionBlock()
example_args = (torch.randn(1, 8, 32, 32),)
dynamic_shapes = ({2: torch.export.Dim("H", min=16, max=64), 3: torch.export.Dim("W", min=16, max=64)},)
