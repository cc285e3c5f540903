"""Rebuilt from https://github.com/pytorch/pytorch/issues/102948
"[onnx] aten::cumprod cannot be exported to ONNX"

`torch.cumprod(x, dim=-1)` over a (1, 1, 1024, 65) tensor fails with "Exporting the operator
'aten::cumprod' to ONNX opset version 14 is not supported". Here the volume-rendering step that
uses it in real code: transmittance as the running product of (1 - alpha) along each ray.
"""
import torch
import torch.nn as nn


class VolumeRender(nn.Module):
    def forward(self, sigma, rgb):
        alpha = 1.0 - torch.exp(-torch.relu(sigma))
        trans = torch.cumprod(1.0 - alpha + 1e-10, dim=-1)
        weights = alpha * trans
        return (weights.unsqueeze(-1) * rgb).sum(dim=-2)


example_args = (torch.randn(1, 4, 16), torch.rand(1, 4, 16, 3))
