import torch
import torch.nn as nn

from .ops import batched_nms, remove_small_boxes


class ProposalFilter(nn.Module):
    def __init__(self, min_size=1e-3, nms_thresh=0.7):
        super().__init__()
        self.min_size = min_size
        self.nms_thresh = nms_thresh

    def forward(self, proposals, objectness):
        boxes = torch.cat([proposals[:, :2], proposals[:, :2] + proposals[:, 2:]], dim=1)
        keep = remove_small_boxes(boxes, self.min_size)
        boxes, scores = boxes[keep], objectness[keep]
        lvl = torch.zeros_like(scores, dtype=torch.int64)
        keep = batched_nms(boxes, scores, lvl, self.nms_thresh)
        return boxes[keep], scores[keep]
