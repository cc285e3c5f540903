"""Rebuilt from https://github.com/facebookresearch/fairseq/pull/4708
"[fairseq] Guard call to `shape_as_tensor` with `is_in_onnx_export()`"

fairseq's positional embedding chooses how to read the sequence length depending on whether an
export is running; the project wraps the query in a helper of its `utils` module (as fairseq's
`utils.is_exporting()` style helpers do) and the embedding module branches on it.
"""
import torch

from .embedding import SinusoidalPositions

model = SinusoidalPositions()
example_args = (torch.randn(2, 7, 8),)
dynamic_shapes = ({1: torch.export.Dim("t", min=2, max=64)},)
