import torch.nn as nn

from .neck import AdjustLayer


class TemplateBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.neck = AdjustLayer(8, 4)

    def forward(self, z):
        zf = self.backbone(z)
        return self.neck(zf)
