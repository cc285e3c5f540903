"""Rebuilt from https://github.com/pytorch/executorch/issues/11128
"torch._dynamo.exc.Unsupported: Attempted to call function marked as skipped"

A trajectory transformer keeps its decoding utilities in an `ops` subpackage; one of them is
marked `@torch._dynamo.disable`, re-exported by `ops/__init__.py`, and the model calls it as
`ops.<name>(...)` in `forward`; the user exported with torch.export.
"""
import torch

from .model import TrajectoryDecoder

model = TrajectoryDecoder()
example_args = (torch.randn(2, 5, 8),)
