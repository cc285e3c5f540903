"""Rebuilt from https://github.com/pytorch/pytorch/issues/125894
"[ONNX] export.export + dynamo_export fail on GLU because decompositions are not run"
(`Unsupported FX nodes: {'call_function': ['aten.glu.default']}` at the time; the legacy
exporter worked)

The gated feed-forward block (`layers.py`) ends with `nn.GLU()`; the model (`net.py`) stacks the
blocks in an `nn.ModuleList`. Believed to export today.
"""
import torch

from .net import GatedMLP

model = GatedMLP()
example_args = (torch.randn(8, 4),)
