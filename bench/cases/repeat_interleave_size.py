"""Rebuilt from https://github.com/pytorch/pytorch/issues/154093
"Model export to onnx, but got RuntimeError: Expected all tensors to be on the same device"

`torch.repeat_interleave(y, x.shape[0], dim=0)`: a size used as the repeat count. On CUDA the
user's ONNX export failed because the traced size was a CPU tensor.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x, y):
        y = torch.repeat_interleave(y, x.shape[0], dim=0)
        return x + y


example_args = (torch.zeros((3, 10)), torch.zeros((1, 10)))
dynamic_shapes = {"x": {0: torch.export.Dim("batch", min=1, max=64)}, "y": None}
