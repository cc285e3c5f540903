import torch.nn as nn

from .bbox_nms import multiclass_nms


class BoxHead(nn.Module):
    def __init__(self, in_channels=32, num_classes=4):
        super().__init__()
        self.fc_cls = nn.Linear(in_channels, num_classes + 1)
        self.fc_reg = nn.Linear(in_channels, num_classes * 4)
        self.score_thr = 0.05
        self.max_per_img = 10

    def forward(self, roi_feats):
        cls_score = self.fc_cls(roi_feats)
        bbox_pred = self.fc_reg(roi_feats)
        scores = cls_score.softmax(dim=1)
        return multiclass_nms(bbox_pred, scores, self.score_thr, max_num=self.max_per_img)
