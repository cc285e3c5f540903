import torch.nn as nn

from .blocks import ResidualBlock


class Generator(nn.Module):
    """Generator network."""

    def __init__(self, conv_dim=64, repeat_num=1):
        super().__init__()
        layers = []
        layers.append(nn.Conv2d(3, conv_dim, kernel_size=7, stride=1, padding=3, bias=False))
        layers.append(nn.InstanceNorm2d(conv_dim, affine=True, track_running_stats=True))
        layers.append(nn.ReLU(inplace=True))
        for _ in range(repeat_num):
            layers.append(ResidualBlock(dim_in=conv_dim, dim_out=conv_dim))
        layers.append(nn.Conv2d(conv_dim, 3, kernel_size=7, stride=1, padding=3, bias=False))
        layers.append(nn.Tanh())
        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return self.main(x)
