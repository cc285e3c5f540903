import torch.nn as nn

from .layers import box_area_scores


class FastRCNNOutputs(nn.Module):
    def __init__(self, c=8, num_classes=1):
        super().__init__()
        self.bbox_pred = nn.Linear(c, 4 * num_classes)
        self.cls_score = nn.Linear(c, num_classes + 1)

    def forward(self, feats, proposals):
        deltas = self.bbox_pred(feats)
        num_bbox_reg_classes = deltas.shape[1] // 4
        if num_bbox_reg_classes == 1:
            boxes = proposals + deltas
        else:
            boxes = proposals[:, None] + deltas.view(-1, num_bbox_reg_classes, 4)
        scores = self.cls_score(feats).softmax(-1)[:, 0]
        return box_area_scores(boxes, scores)
