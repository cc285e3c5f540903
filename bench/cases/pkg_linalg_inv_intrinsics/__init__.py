"""Rebuilt from https://github.com/HuangJunJie2017/BEVDet/issues/369 "Exporting the operator
'aten::linalg_inv' to ONNX opset version 17 is not supported" (BEVDet's view transformer inverts the
camera intrinsics and post-augmentation matrices to lift image points into ego space)

`geometry.py` holds the lifting helper; `view_transformer.py` the module.
"""
import torch

from .view_transformer import LiftPoints

model = LiftPoints()
example_args = (torch.eye(3).repeat(2, 1, 1) * 2 + torch.randn(2, 3, 3) * 0.01, torch.randn(2, 5, 3))
opset_version = 17
