"""Rebuilt from https://github.com/pytorch/pytorch/issues/100429 "[ONNX] torch.repeat_interleave
export failed" (`x.repeat_interleave(2)` with no `dim`, dynamic axes, opset 17: fails with the
legacy exporter)

`tokens.py` duplicates every token id of a flattened batch; exported with a dynamic batch.
"""
import torch

from .tokens import TokenDoubler

model = TokenDoubler()
example_args = (torch.ones(2, 3),)
dynamic_shapes = ({0: torch.export.Dim("batch", min=1, max=16)},)
opset_version = 17
