import torch.nn as nn


class ConvBlock(nn.Module):
    def __init__(self, cin, cout, kernel_size=3, padding=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size, padding=padding)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.conv(x))
