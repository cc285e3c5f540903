"""Rebuilt from https://github.com/pytorch/pytorch/issues/146152 "[torch.export] Cannot export
TorchVision fasterrcnn_mobilenet_v3_large_fpn" (data-dependent errors in the RPN's proposal
filtering: small boxes removed with `torch.where(...)[0]`, then `batched_nms`)

The RPN (`rpn.py`) filters proposals with `remove_small_boxes` and `batched_nms` from
`ops/boxes.py`, re-exported by `ops/__init__.py`; `batched_nms` returns early when no box is left.
"""
import torch

from .rpn import ProposalFilter

model = ProposalFilter()
example_args = (torch.rand(50, 4) * 20, torch.rand(50))
