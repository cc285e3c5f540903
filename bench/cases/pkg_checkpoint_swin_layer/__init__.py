"""Rebuilt from https://github.com/pytorch/pytorch/issues/84692 "Error when trying to export
MONAI model to ONNX" (SwinUNETR built with `use_checkpoint=True`, exported with
`torch.onnx.export(..., opset_version=17)`)

The Swin stage (`swin_layers.py`) runs its blocks, kept in an `nn.ModuleList`, through
`torch.utils.checkpoint.checkpoint` when `use_checkpoint` is set; the network (`swin_unetr.py`)
builds the stage with `use_checkpoint=True`.
"""
import torch

from .swin_unetr import SwinEncoder

model = SwinEncoder()
example_args = (torch.randn(1, 6, 8),)
