"""Rebuilt from https://github.com/pytorch/pytorch/issues/41423
"ONNX fails to export Fold / col2im"

The user's module wraps `nn.Fold(output_size=(4, 5), kernel_size=(2, 2))` and exports with
`opset_version=12` and a dynamic batch: "RuntimeError: Exporting the operator col2im to ONNX opset
version 12 is not supported". Here the fold sits in a patch-merging block (unfold -> linear ->
fold), as in the video inpainting transformers that motivated ONNX's Col2Im.
"""
import torch
import torch.nn as nn


class PatchMerge(nn.Module):
    def __init__(self, channels=3, kernel=2):
        super().__init__()
        self.proj = nn.Linear(channels * kernel * kernel, channels * kernel * kernel)
        self.fold = nn.Fold(output_size=(4, 5), kernel_size=(kernel, kernel))

    def forward(self, x):
        tokens = self.proj(x.transpose(1, 2)).transpose(1, 2)
        folded = self.fold(tokens)
        return folded


example_args = (torch.randn(1, 12, 12),)
dynamic_shapes = {"x": {0: torch.export.Dim("batch", min=1, max=8)}}
opset_version = 12
