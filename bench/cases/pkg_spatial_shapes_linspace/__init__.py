"""Rebuilt from https://github.com/pytorch/pytorch/issues/136642 "Add support for immutable tensors
in torch.export" (an object detector casts the list of feature-map sizes into a tensor,
`spatial_shapes = torch.as_tensor(spatial_shapes, dtype=torch.long)`, then iterates it:
`for H, W in spatial_shapes: torch.linspace(0.5, H - 0.5, H)` "breaks here" with
GuardOnDataDependentSymNode in strict torch.export; the Deformable-DETR reference points)

`ops/reference_points.py` holds the helper, re-exported by `ops/__init__.py`; `encoder.py` the
multi-scale encoder.
"""
import torch

from .encoder import MultiScaleEncoder

model = MultiScaleEncoder()
example_args = (torch.randn(1, 8, 8, 8), torch.randn(1, 8, 4, 4))
