"""Rebuilt from https://github.com/roboflow/rf-detr/issues/1204 "ONNX-export failure"
(`UnsupportedOperatorError: Exporting the operator 'aten::_upsample_bicubic2d_aa' to ONNX opset
version 17 is not supported`, legacy exporter)

The projector (`projector.py`) resizes its features with `F.interpolate(..., antialias=
self.antialias)`; the detector (`detector.py`) builds it with `antialias=True`.
"""
import torch

from .detector import Detector

model = Detector()
example_args = (torch.randn(1, 4, 24, 24),)
opset_version = 17
