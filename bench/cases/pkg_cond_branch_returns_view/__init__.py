"""Rebuilt from https://github.com/pytorch/pytorch/issues/123972 "Dynamo export: limited support in
Torch.cond" (MONAI's DiNTS rewrites a data-dependent branch with `torch.cond`; the maintainers' advice:
"clone for x_out so that the true branch doesn't alias the input" - a branch may not return its
operand or a view of it)

`select.py` holds the branch functions and the cond helper; `cell.py` the searched cell.
"""
import torch

from .cell import SearchCell

model = SearchCell()
example_args = (torch.randn(2, 6), torch.tensor(True))
