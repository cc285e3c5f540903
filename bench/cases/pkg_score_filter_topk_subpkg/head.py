import torch.nn as nn

from .utils import filter_scores_and_topk


class YOLOv5HeadPredict(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.cls = nn.Linear(num_classes, num_classes)

    def forward(self, feats):
        scores = self.cls(feats[0]).sigmoid()
        scores, labels, keep_idxs = filter_scores_and_topk(scores, 0.3, 10)
        if scores.shape[0] == 0:
            return scores.new_zeros((0,)), labels
        return scores * 2, labels
