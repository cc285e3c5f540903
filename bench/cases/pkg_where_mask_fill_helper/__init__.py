"""Rebuilt from https://github.com/pytorch/pytorch/issues/135618 "Real tensor prop for export
fails for torch.where() call" (a model mixing `torch.where` on tensor data with shape logic)

`masking.py` builds a key-padding mask from data and applies it with the three-argument
`torch.where` and `masked_fill` (no data-dependent size); the attention pooling (`pool.py`) calls
it. Exported with a dynamic sequence. Looks risky (masks from data); believed to export fine.
"""
import torch

from .pool import AttnPool

model = AttnPool()
example_args = (torch.randn(2, 7, 8), torch.tensor([[1, 1, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 0]]))
dynamic_shapes = ({1: torch.export.Dim("s", min=2, max=64)}, {1: torch.export.Dim("s", min=2, max=64)})
