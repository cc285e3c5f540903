import torch.nn as nn

from .postprocess import select_detections


class TinyRetinaHead(nn.Module):
    def __init__(self, in_channels=8):
        super().__init__()
        self.cls_logits = nn.Conv2d(in_channels, 1, 3, padding=1)
        self.bbox_reg = nn.Conv2d(in_channels, 4, 3, padding=1)
        self.score_thresh = 0.3
        self.detections_per_img = 10

    def forward(self, features):
        scores = self.cls_logits(features)[0].flatten().sigmoid()
        boxes = self.bbox_reg(features)[0].permute(1, 2, 0).reshape(-1, 4)
        return select_detections(boxes, scores, self.score_thresh, self.detections_per_img)
