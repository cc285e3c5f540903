import torch
import torch.nn as nn

from .window_ops import window_partition, window_reverse


class ShiftedWindowBlock(nn.Module):
    def __init__(self, dim=16, window_size=4, shift_size=2):
        super().__init__()
        self.window_size = window_size
        self.shift_size = shift_size
        self.norm = nn.LayerNorm(dim)
        self.mix = nn.Linear(dim, dim)

    def forward(self, x):
        B, H, W, C = x.shape
        shortcut = x
        x = self.norm(x)
        shifted_x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
        x_windows = window_partition(shifted_x, self.window_size)
        x_windows = self.mix(x_windows)
        shifted_x = window_reverse(x_windows, self.window_size, H, W)
        x = torch.roll(shifted_x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
        return shortcut + x
