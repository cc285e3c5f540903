import torch
import torch.nn as nn

from .select import keep_per_image

MIN_BOXES = 4


class BoxFeatureExtractor(nn.Module):
    def __init__(self, conf_thresh=0.6):
        super().__init__()
        self.conf_thresh = conf_thresh

    def forward(self, max_conf, feats):
        kept = keep_per_image(max_conf, self.conf_thresh)
        out = []
        for i, keep_boxes in enumerate(kept):
            if len(keep_boxes) < MIN_BOXES:
                keep_boxes = torch.argsort(max_conf[i], descending=True)[:MIN_BOXES]
            out.append(feats[i][keep_boxes].mean(0))
        return torch.stack(out)
