import torch.nn as nn

from .bbox_nms import multiclass_nms


class BBoxHead(nn.Module):
    def __init__(self, c=8, num_classes=2):
        super().__init__()
        self.reg = nn.Linear(c, 4)
        self.cls = nn.Linear(c, num_classes)

    def forward(self, feats):
        boxes = self.reg(feats)
        scores = self.cls(feats).sigmoid()
        return multiclass_nms(boxes, scores, 0.5)
