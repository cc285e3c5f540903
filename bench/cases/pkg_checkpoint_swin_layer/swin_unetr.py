import torch.nn as nn

from .swin_layers import BasicLayer


class SwinEncoder(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.layer1 = BasicLayer(dim, use_checkpoint=True)
        self.head = nn.Linear(dim, 2)

    def forward(self, x):
        return self.head(self.layer1(x))
