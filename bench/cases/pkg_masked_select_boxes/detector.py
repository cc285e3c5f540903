import torch.nn as nn

from .postprocess import filter_boxes


class BoxHead(nn.Module):
    def __init__(self, dim=16, thresh=0.0):
        super().__init__()
        self.thresh = thresh
        self.box = nn.Linear(dim, 4)
        self.score = nn.Linear(dim, 1)

    def forward(self, feats):
        bbs = self.box(feats)
        conf = self.score(feats).squeeze(-1)
        return filter_boxes(bbs, conf, self.thresh)
