"""Rebuilt from https://github.com/open-mmlab/mmdeploy/issues/2920
"[Bug] Mask2Former convert to tensorRT model failed when setting batchSize > 1"

Swin's window_reverse computes the batch with `int(windows.shape[0] / (H * W / ws / ws))`; the
user saw "TracerWarning: Converting a tensor to a Python integer" there, and the exported model
failed at batch sizes other than the example's.
"""
import torch


class WindowReverse(torch.nn.Module):
    def __init__(self, window_size=4):
        super().__init__()
        self.window_size = window_size

    def forward(self, windows, x):
        H, W = x.shape[2], x.shape[3]
        ws = self.window_size
        B = int(windows.shape[0] / (H * W / ws / ws))
        out = windows.view(B, H // ws, W // ws, ws, ws, -1)
        out = out.permute(0, 1, 3, 2, 4, 5).reshape(B, H, W, -1)
        return out + x.permute(0, 2, 3, 1)


batch = torch.export.Dim("batch", min=1, max=32)
example_args = (torch.randn(8, 4, 4, 3), torch.randn(2, 3, 8, 8))
dynamic_shapes = {"windows": {0: 4 * batch}, "x": {0: batch}}
