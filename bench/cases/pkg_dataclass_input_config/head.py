import torch.nn as nn


class ScaledHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, cfg):
        y = self.proj(x) + cfg.offset
        return y * cfg.repeats
