import torch.nn as nn

from .head import ScoreHead


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = ScoreHead()

    def forward(self, boxes, feats):
        dets = self.head(boxes, feats)
        if dets.boxes.numel() == 0:
            return dets.scores.new_zeros((1,))
        return dets.scores * 2
