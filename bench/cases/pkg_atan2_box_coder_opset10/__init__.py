"""Rebuilt from https://github.com/open-mmlab/OpenPCDet/issues/1554 "Hello, when i am trying to
export pth to onnx,it suggest atan2 to onnx not supported" (`RuntimeError: Exporting the
operator atan2 to ONNX opset version 10 is not supported.`)

OpenPCDet's residual box coder (`box_coder_utils.py`) decodes the heading with `torch.atan2`;
the dense head (`anchor_head.py`) calls it. Exported with opset 10.
"""
import torch

from .anchor_head import AnchorHead

model = AnchorHead()
example_args = (torch.randn(1, 16, 8),)
opset_version = 10
