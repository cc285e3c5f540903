import torch.nn as nn
import torch.nn.functional as F

from .mask_utils import padded_mask


class SwinStage(nn.Module):
    def __init__(self, dim, window_size):
        super().__init__()
        self.window_size = window_size
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, H, W):
        B, L, C = x.shape
        mask = padded_mask(H, W, self.window_size, x.device)
        x = x.view(B, H, W, C)
        pad_r = (self.window_size - W % self.window_size) % self.window_size
        pad_b = (self.window_size - H % self.window_size) % self.window_size
        x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        x = x * mask
        x = x[:, :H, :W, :].reshape(B, H * W, C)
        return self.proj(x)
