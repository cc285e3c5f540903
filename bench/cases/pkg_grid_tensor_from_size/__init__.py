"""Rebuilt from https://github.com/pytorch/pytorch/issues/26127
"[ONNX] export with dynamic_axes should generate Shape node for intermediate tensor .shape calls
even without jit.script"

The normalising grid helper lives in `geometry.py` and turns the feature map's height and width
into a tensor with `torch.tensor([w, h])`; the head in `head.py` calls it. Exported with dynamic
H/W, the sizes were baked into the ONNX graph.
"""
import torch

from .head import NormalizedCoords

model = NormalizedCoords()
example_args = (torch.randn(1, 2, 6, 5),)
dynamic_shapes = ({2: torch.export.Dim("h", min=2, max=128), 3: torch.export.Dim("w", min=2, max=128)},)
