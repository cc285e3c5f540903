"""Rebuilt from https://github.com/tinyvision/SOLIDER/issues/9
"Exporting to ONNX (Person REID)"

The fix shared for Swin with a dynamic batch: compute `C = int(windows.shape[-1])` and view with
`-1` for the batch instead of `B = int(windows.shape[0] / (H * W / window_size / window_size))`.
Believed fine: the `int()` is of the static channel dim, the batch stays `-1`.
"""
import torch
import torch.nn as nn


class WindowReverse(nn.Module):
    def __init__(self, window_size=4, H=8, W=8):
        super().__init__()
        self.window_size, self.H, self.W = window_size, H, W

    def forward(self, windows):
        H, W, window_size = self.H, self.W, self.window_size
        C = int(windows.shape[-1])
        x = windows.view(-1, H // window_size, W // window_size, window_size, window_size, C)
        x = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, H, W, C)
        return x


example_args = (torch.randn(8, 4, 4, 6),)
dynamic_shapes = {"windows": {0: torch.export.Dim("nwb", min=4, max=256)}}
