"""Rebuilt from https://github.com/Comfy-Org/ComfyUI/issues/2194
"torch modules using inference_mode cause problems when doing acceleration"

ComfyUI runs its modules under `torch.inference_mode()` instead of `no_grad`, which the user
found broke ONNX export. Here a denoiser whose `forward` opens `torch.inference_mode()` itself.
Believed fine with torch 2.13.
"""
import torch
import torch.nn as nn


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1))

    def forward(self, x):
        with torch.inference_mode():
            return x - self.net(x)


example_args = (torch.randn(1, 3, 8, 8),)
