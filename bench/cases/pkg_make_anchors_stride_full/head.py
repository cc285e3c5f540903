import torch
import torch.nn as nn

from .tal import make_anchors


class PoseHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("stride", torch.tensor([8.0, 16.0, 32.0]))

    def forward(self, feats):
        anchors, strides = make_anchors(feats, self.stride)
        flat = torch.cat([f.flatten(2) for f in feats], 2).transpose(1, 2)
        return flat[..., :2] * strides + anchors
