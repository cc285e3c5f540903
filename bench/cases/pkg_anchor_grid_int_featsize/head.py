import torch
import torch.nn as nn

from .anchor_generator import AnchorGenerator


class AnchorHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, padding=1)
        self.reg = nn.Conv2d(8, 4, 1)
        self.anchor_generator = AnchorGenerator([2, 4])

    def forward(self, img):
        f1 = self.conv1(img)
        f2 = self.conv2(f1)
        feats = [f1, f2]
        featmap_sizes = [f.size()[-2:] for f in feats]
        anchors = self.anchor_generator.grid_anchors(featmap_sizes)
        deltas = [self.reg(f).permute(0, 2, 3, 1).reshape(-1, 4) for f in feats]
        return torch.cat([a + d for a, d in zip(anchors, deltas)])
