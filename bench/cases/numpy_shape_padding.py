"""Rebuilt from https://github.com/murdockhou/Yet-Another-EfficientDet-Pytorch-Convert-ONNX-TVM/issues/2
"Tracerwaring问题" (TracerWarning problem)

The user saw "TracerWarning: Converting a tensor to a NumPy array might cause the trace to be
incorrect" at `h, w = x.cpu().detach().numpy().shape[-2:]` in the static-same-padding max pool.
"""
import math

import numpy as np
import torch
import torch.nn.functional as F


class MaxPool2dStaticSamePadding(torch.nn.Module):
    def __init__(self, kernel_size=3, stride=2):
        super().__init__()
        self.pool = torch.nn.MaxPool2d(kernel_size, stride)
        self.stride = [stride, stride]
        self.kernel_size = [kernel_size, kernel_size]

    def forward(self, x):
        h, w = x.cpu().detach().numpy().shape[-2:]
        extra_h = (math.ceil(w / self.stride[1]) - 1) * self.stride[1] - w + self.kernel_size[1]
        extra_v = (math.ceil(h / self.stride[0]) - 1) * self.stride[0] - h + self.kernel_size[0]
        left = extra_h // 2
        right = extra_h - left
        top = extra_v // 2
        bottom = extra_v - top
        x = F.pad(x, [left, right, top, bottom])
        return self.pool(x)


example_args = (torch.randn(1, 4, 16, 16),)
dynamic_shapes = {"x": {2: torch.export.Dim("h", min=8, max=256), 3: torch.export.Dim("w", min=8, max=256)}}
