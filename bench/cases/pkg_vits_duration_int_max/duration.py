import torch
import torch.nn as nn

from .masks import sequence_mask


class DurationExpander(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.proj = nn.Conv1d(channels, 1, 1)

    def forward(self, x, x_mask):
        logw = self.proj(x * x_mask)
        w = torch.exp(logw) * x_mask
        w_ceil = torch.ceil(w)
        y_lengths = torch.clamp_min(torch.sum(w_ceil, [1, 2]), 1).long()
        y_mask = sequence_mask(y_lengths).unsqueeze(1).to(x_mask.dtype)
        return y_mask, y_lengths
