"""Rebuilt from https://github.com/openvinotoolkit/mmdetection/pull/341
"Fix empty bbox prediction bug"

mmdetection's `multiclass_nms` gained `if multi_bboxes.numel() == 0: return ...` for images with
no detections; the reviewer asked whether export goes down that path. Here the score filter of a
detection post-process followed by the same empty-result guard.
"""
import torch
import torch.nn as nn


class BoxPostProcess(nn.Module):
    def __init__(self, score_thresh=0.5):
        super().__init__()
        self.score_thresh = score_thresh

    def forward(self, boxes, scores):
        keep = scores > self.score_thresh
        boxes, scores = boxes[keep], scores[keep]
        if boxes.numel() == 0:
            return boxes.new_zeros((0, 5))
        return torch.cat([boxes, scores[:, None]], dim=1)


example_args = (torch.rand(10, 4), torch.tensor([0.9, 0.1, 0.7, 0.2, 0.8, 0.3, 0.6, 0.4, 0.95, 0.05]))
