"""Rebuilt from https://github.com/gemelo-ai/vocos/issues/38
"Export to ONNX"

Vocos' ISTFT head turns predicted magnitude and phase into a waveform with
`torch.istft(spec, self.n_fft, self.hop_length, self.win_length, self.window, center=True)`;
exporting the vocoder to ONNX failed there. Here the head with the number of frames dynamic.
"""
import torch
import torch.nn as nn


class ISTFTHead(nn.Module):
    def __init__(self, dim=8, n_fft=16, hop_length=4):
        super().__init__()
        self.n_fft, self.hop_length = n_fft, hop_length
        self.out = nn.Linear(dim, n_fft + 2)
        self.register_buffer("window", torch.hann_window(n_fft))

    def forward(self, x):
        x = self.out(x).transpose(1, 2)
        mag, p = x.chunk(2, dim=1)
        mag = torch.exp(mag).clip(max=1e2)
        spec = mag * (torch.cos(p) + 1j * torch.sin(p))
        return torch.istft(spec, self.n_fft, self.hop_length, self.n_fft, self.window, center=True)


example_args = (torch.randn(1, 20, 8),)
dynamic_shapes = {"x": {1: torch.export.Dim("frames", min=4, max=256)}}
