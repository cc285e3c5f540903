import torch.nn as nn

from .swin_utils import window_partition, window_reverse


class WindowBlock(nn.Module):
    def __init__(self, dim=4, ws=4):
        super().__init__()
        self.ws = ws
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        H, W = x.shape[1], x.shape[2]
        win = self.proj(window_partition(x, self.ws))
        return window_reverse(win, self.ws, H, W)
