import torch.nn as nn


class ConvELU(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.act = nn.ELU(alpha=1.0)

    def forward(self, x):
        return self.act(self.conv(x))
