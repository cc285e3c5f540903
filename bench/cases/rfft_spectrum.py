"""Rebuilt from https://github.com/pytorch/pytorch/issues/112382
"Support for Exporting 'aten::fft_rfft' to ONNX"

The user's model computes a magnitude spectrum with `torch.fft.rfft` and `torch.fft.rfftfreq`:
"UnsupportedOperatorError: Exporting the operator 'aten::fft_rfft' to ONNX opset version 14 is not
supported" (also with opset 17); the maintainers pointed to the dynamo-based exporter.
"""
import torch


class SpectralFeatures(torch.nn.Module):
    def __init__(self, n_bins=8):
        super().__init__()
        self.proj = torch.nn.Linear(33, n_bins)

    def forward(self, signal):
        spec = torch.fft.rfft(signal, dim=-1)
        mag = spec.abs()
        freqs = torch.fft.rfftfreq(signal.shape[-1])
        centroid = (mag * freqs).sum(-1, keepdim=True) / (mag.sum(-1, keepdim=True) + 1e-6)
        return self.proj(torch.log1p(mag)), centroid


example_args = (torch.randn(2, 64),)
opset_version = 17
