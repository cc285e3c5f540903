import torch.nn as nn

from .padding import pad_by_height


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 3, padding=1)

    def forward(self, I):
        x, H = pad_by_height(I)
        x = self.conv(x)
        return x[:, :, :H]
