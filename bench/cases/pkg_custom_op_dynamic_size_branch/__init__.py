"""Rebuilt from https://github.com/pytorch/pytorch/pull/136869 "[export] Draft of draft export"
(a custom op with a data-dependent output size: its fake kernel allocates
`ctx.new_dynamic_size()` rows) and https://github.com/pytorch/tutorials/pull/2873 "Fix up custom
op tutorials" (`register_fake` for "op_that_has_data_dependent")

`ops.py` defines a `torch.library.custom_op` that keeps the rows above a threshold, with a fake
kernel in `fake.py`; the filter (`filter.py`) calls it and branches on how many rows came back.
"""
import torch

from . import fake  # noqa: F401  (registers the fake kernel)
from .filter import RowFilter

model = RowFilter()
example_args = (torch.randn(16, 4),)
