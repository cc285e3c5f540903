import torch
import torch.nn as nn

from .signal_ops import find_extrema_3d


class EpochFeatureExtractor(nn.Module):
    def __init__(self, samples=32, hidden=8):
        super().__init__()
        self.conv = nn.Conv1d(1, 1, 3, padding=1)
        self.proj = nn.Linear(2 * samples, hidden)

    def forward(self, eeg):
        B, E, C, T = eeg.shape
        x = self.conv(eeg.reshape(B * E, C, T)).reshape(B, E, T)
        ext = find_extrema_3d(x)
        return self.proj(torch.cat([x, ext], dim=-1))
