import torch
import torch.nn as nn

from .features import stft_magnitude


class STFTFrontEnd(nn.Module):
    def __init__(self):
        super().__init__()
        self._window = torch.hann_window(window_length=320)

    def forward(self, signals):
        return stft_magnitude(signals, self._window).clamp_min(1e-5).log()
