"""Rebuilt from https://github.com/pytorch/pytorch/issues/128818
"ONNX Dynamo Export - Unsupported FX nodes: {'call_function': ['aten._upsample_bilinear2d_aa.default']}."

A resize "model" calling `F.interpolate(..., mode='bilinear', antialias=True)` failed with both
the legacy and the dynamo ONNX exporters.
"""
import torch
import torch.nn.functional as F


class ResizeModel(torch.nn.Module):
    def __init__(self, size=(6, 6)):
        super().__init__()
        self._size = size

    def forward(self, x):
        return F.interpolate(input=x, size=self._size, mode="bilinear", align_corners=False, antialias=True)


example_args = (torch.randn(1, 3, 16, 16),)
