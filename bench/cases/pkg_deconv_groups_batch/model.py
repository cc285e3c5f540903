import torch.nn as nn

from .dynconv import per_sample_deconv


class DynamicFilterUp(nn.Module):
    def __init__(self, in_channels=4, out_channels=3, k=3):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.k = k
        self.kernel = nn.Linear(16, in_channels * out_channels * k * k)

    def forward(self, x, style):
        n = style.shape[0]
        w = self.kernel(style).view(n * self.in_channels, self.out_channels, self.k, self.k)
        return per_sample_deconv(x, w, self.out_channels)
