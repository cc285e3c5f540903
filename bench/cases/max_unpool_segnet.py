"""Rebuilt from https://github.com/pytorch/pytorch/issues/85388
"[ONNX] Exporting the operator ::max_unpool2d to ONNX"

SegNet's encoder keeps the max-pooling indices (`nn.MaxPool2d(2, 2, return_indices=True)`) and
its decoder upsamples with `nn.MaxUnpool2d(2, 2)`; the export with opset_version=13 failed with
"Exporting the operator ::max_unpool2d to ONNX opset version 13 is not supported" (also ENet,
pytorch/pytorch#25088).
"""
import torch


class MiniSegNet(torch.nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.enc = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2, 2, return_indices=True)
        self.unpool = torch.nn.MaxUnpool2d(2, 2)
        self.dec = torch.nn.Conv2d(8, classes, 3, padding=1)

    def forward(self, x):
        x = torch.relu(self.enc(x))
        size = x.size()
        x, indices = self.pool(x)
        x = self.unpool(x, indices, output_size=size)
        return self.dec(x)


example_args = (torch.randn(1, 3, 16, 16),)
opset_version = 13
