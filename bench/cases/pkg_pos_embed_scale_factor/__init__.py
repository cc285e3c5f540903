"""Rebuilt from https://github.com/huggingface/transformers/pull/33226 "Fix `torch.jit.trace` for
`interpolate_pos_encoding` in all vision models" (the old helper interpolated the position
embeddings with `scale_factor` computed from Python casts of the input size, `+ 0.1` offset
included: traced once, the legacy exporter bakes the sizes, and dynamic H/W is wrong)

`embeddings.py` holds the patch embeddings; `vision_utils.py` the interpolation helper.
Exported with dynamic H/W.
"""
import torch

from .embeddings import PatchEmbeddings

model = PatchEmbeddings()
example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = ({2: torch.export.Dim("H", min=16, max=64), 3: torch.export.Dim("W", min=16, max=64)},)
