import torch.nn as nn

from .framing import frame_signal


class FrameFrontend(nn.Module):
    def __init__(self, frame_length=4, hop_length=2, dim=8):
        super().__init__()
        self.frame_length = frame_length
        self.hop_length = hop_length
        self.proj = nn.Linear(frame_length, dim)

    def forward(self, x):
        frames = frame_signal(x, self.frame_length, self.hop_length)
        return self.proj(frames).mean(dim=1)
