import torch.nn as nn

from .structures import Detections


class ScoreHead(nn.Module):
    def __init__(self, ch=6, thr=0.5):
        super().__init__()
        self.fc = nn.Linear(ch, 1)
        self.thr = thr

    def forward(self, boxes, feats):
        scores = self.fc(feats).sigmoid().squeeze(-1)
        keep = scores > self.thr
        return Detections(boxes=boxes[keep], scores=scores[keep])
