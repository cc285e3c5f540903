"""Rebuilt from https://github.com/pytorch/pytorch/issues/84374
"nn.functional.interpolate with dynamic size cannot export correctly"

`nn.functional.interpolate(x, size=(x.shape[-2], x.shape[-1]))` then `out + x`, exported at
opset 11; the user expected "the onnx model to still trace the size as dynamic (sync with another
tensor)". Here with the height and width declared dynamic.
"""
import torch
import torch.nn as nn


class TestModel(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = nn.functional.interpolate(x, size=(x.shape[-2], x.shape[-1]))
        return out + x


example_args = (torch.randn(4, 8, 48, 48),)
dynamic_shapes = {"x": {2: torch.export.Dim("h", min=4, max=128), 3: torch.export.Dim("w", min=4, max=128)}}
opset_version = 11
