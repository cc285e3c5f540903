"""Rebuilt from https://github.com/pytorch/pytorch/issues/131635 "torch.onnx.errors.UnsupportedOperatorError"
(PointNet++ exported to ONNX: "Exporting the operator 'aten::randint' to ONNX opset version 14 is
not supported"; the farthest point sampling of pointnet2_utils starts from
`torch.randint(0, N, (B,))`)

`pointnet2_utils.py` holds the sampling helpers; `set_abstraction.py` the layer using them. The
layer samples every point (npoint == N) and max-pools, so the output does not depend on the
random start.
"""
import torch

from .set_abstraction import PointNetSetAbstraction

model = PointNetSetAbstraction(npoint=8, in_channel=3, mlp=[16, 32])
example_args = (torch.randn(2, 8, 3),)
opset_version = 14
