import torch
import torch.nn as nn

from .box_coder_utils import ResidualCoder


class AnchorHead(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.box_coder = ResidualCoder()
        self.conv_box = nn.Linear(c, self.box_coder.code_size)
        self.register_buffer("anchors", torch.rand(16, 7) + 0.5)

    def forward(self, feats):
        box_preds = self.conv_box(feats)
        return self.box_coder.decode_torch(box_preds, self.anchors.expand(feats.shape[0], -1, -1))
