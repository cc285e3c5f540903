import torch.nn as nn

from .base import HeadBase


class ClassBoxHead(HeadBase):
    def __init__(self, dim=8, num_classes=3):
        super().__init__()
        self.cls = nn.Linear(dim, num_classes + 1)
        self.box = nn.Linear(dim, 4)

    def forward(self, hs):
        return self.postprocess(self.cls(hs), self.box(hs))
