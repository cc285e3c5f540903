"""Rebuilt from https://github.com/pytorch/pytorch/issues/83498
"torch.onnx not support stft"

A SpeechBrain speaker-embedding model exported with `opset_version=11` fails in its feature
frontend: "Exporting the operator stft to ONNX opset version 11 is not supported". Here the
Fbank frontend: STFT with a registered Hann window, power spectrum, mel projection, over a
waveform of dynamic length.
"""
import torch
import torch.nn as nn


class Fbank(nn.Module):
    def __init__(self, n_fft=64, hop=16, n_mels=8):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        self.register_buffer("mel", torch.rand(n_fft // 2 + 1, n_mels))

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True)
        power = spec.abs().pow(2).transpose(1, 2)
        return torch.log(power @ self.mel + 1e-6)


example_args = (torch.randn(2, 800),)
dynamic_shapes = {"wav": {1: torch.export.Dim("samples", min=256, max=16000)}}
opset_version = 11
