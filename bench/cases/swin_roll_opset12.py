"""Rebuilt from https://github.com/pytorch/pytorch/issues/56355
"Exporting the operator roll to ONNX opset version 12 is not supported."

Swin's shifted-window block pads the feature map to a multiple of the window, then
`torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))` before partitioning;
the user exported with opset 12. Believed to break (the report predates roll's symbolic).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ShiftedWindowBlock(nn.Module):
    def __init__(self, dim=8, window_size=4, shift_size=2):
        super().__init__()
        self.window_size, self.shift_size = window_size, shift_size
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, H, W, C = x.shape
        shifted_x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
        ws = self.window_size
        windows = shifted_x.view(B, H // ws, ws, W // ws, ws, C).permute(0, 1, 3, 2, 4, 5)
        windows = self.proj(windows.reshape(-1, ws * ws, C))
        x = windows.view(B, H // ws, W // ws, ws, ws, C).permute(0, 1, 3, 2, 4, 5).reshape(B, H, W, C)
        return torch.roll(x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))


example_args = (torch.randn(2, 8, 8, 8),)
opset_version = 12
