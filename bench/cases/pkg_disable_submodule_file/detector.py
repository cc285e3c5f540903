import torch.nn as nn

from .postprocess import PostProcess


class Detector(nn.Module):
    def __init__(self, dim=8, num_classes=3):
        super().__init__()
        self.class_embed = nn.Linear(dim, num_classes + 1)
        self.bbox_embed = nn.Linear(dim, 4)
        self.post = PostProcess()

    def forward(self, hs):
        return self.post(self.class_embed(hs), self.bbox_embed(hs))
