import torch.nn as nn

from .swin import SwinStage


class SwinBackbone(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.stage = SwinStage(dim, window_size=7)

    def forward(self, x):
        B, C, H, W = x.shape
        tokens = x.flatten(2).transpose(1, 2)
        return self.stage(tokens, H, W)
