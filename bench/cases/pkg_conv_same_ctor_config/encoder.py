import torch.nn as nn

from .blocks import ConvBlock
from .config import ENCODER_CFG


class Encoder(nn.Module):
    def __init__(self, cfg=ENCODER_CFG):
        super().__init__()
        ch = cfg["channels"]
        self.blocks = nn.Sequential(
            *[ConvBlock(ch[i], ch[i + 1], cfg["kernel_size"], padding=cfg["padding"]) for i in range(len(ch) - 1)]
        )

    def forward(self, x):
        return self.blocks(x)
