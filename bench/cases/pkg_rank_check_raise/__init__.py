"""Rebuilt from https://github.com/pytorch/pytorch/issues/123249 "torch._dynamo.exc.Unsupported:
call_function BuiltinVariable(ValueError) [ConstantVariable(str)]" (a model validating its input in
forward and raising `ValueError` on a bad one; export then failed on the `raise`)

`checks.py` holds the validation helper (rank and channel checks, raising on a mismatch);
`model.py` the module; the batch and spatial sizes are dynamic.
"""
import torch
from torch.export import Dim

from .model import CheckedStem

model = CheckedStem()
example_args = (torch.randn(2, 3, 32, 32),)
dynamic_shapes = {"x": {0: Dim("batch", max=16), 2: Dim("h", min=8, max=128), 3: Dim("w", min=8, max=128)}}
