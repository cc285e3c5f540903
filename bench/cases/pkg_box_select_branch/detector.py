import torch.nn as nn

from .box_selector import select_top_score_boxes


class RetinaHead(nn.Module):
    def __init__(self, dim=16, num_classes=3):
        super().__init__()
        self.cls = nn.Linear(dim, num_classes)
        self.reg = nn.Linear(dim, 4)

    def forward(self, feats):
        logits = self.cls(feats)[0]
        boxes = self.reg(feats)[0]
        return select_top_score_boxes(boxes, logits)
