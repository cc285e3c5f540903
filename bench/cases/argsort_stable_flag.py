"""Rebuilt from https://github.com/pytorch/pytorch/issues/95613
"[onnx] sort / argsort with `stable` argument specified cannot be exported to onnx"

`torch.sort(x, stable=False)` (the documented default, passed explicitly) to rank scores, exported
with opset 11 and a dynamic first axis: "OnnxExporterError: Unsupported: ONNX export of operator
Sort, Out parameter is not supported."
"""
import torch


class RankScores(torch.nn.Module):
    def forward(self, x):
        v, inds = torch.sort(x, stable=False)
        return v, inds


example_args = (torch.randn(20),)
dynamic_shapes = {"x": {0: torch.export.Dim("n", min=2, max=1024)}}
opset_version = 11
