"""Rebuilt from https://github.com/pytorch/pytorch/issues/68880
"Setting 'padding' to a string will fail exporting Conv2d operator to ONNX."

Two `nn.Conv2d(..., padding='same')` layers: "Exporting the operator _convolution_mode to ONNX
opset version X is not supported".
"""
import torch


class SameConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(2, 32, 3, padding="same")
        self.c2 = torch.nn.Conv2d(32, 16, 3, padding="same")

    def forward(self, x):
        return self.c2(self.c1(x))


example_args = (torch.randn(1, 2, 64, 64),)
