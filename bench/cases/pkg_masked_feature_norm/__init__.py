"""Rebuilt from https://github.com/pytorch/pytorch/issues/116336 "torch._dynamo.exc.UserError: Tried to
use data-dependent value in the subsequent computation" (an ONNX export through torch.export failed
with "Could not guard on data-dependent expression Eq(32*u0, 0)", the culprit being
`if x.numel() == 0 and (ord < 0.0 ...)` in `vector_norm`, called on features whose row count came
from a data-dependent selection)

`ops.py` holds the normalisation of the selected feature rows; `model.py` the embedding module
selecting the rows whose gate is open.
"""
import torch

from .model import GatedEmbedding

model = GatedEmbedding()
example_args = (torch.randn(6, 32),)
