"""Rebuilt from https://github.com/onnx/onnx/issues/1552
"Object detection ops"

The mmdetection export log in the thread warns at `bbox_nms.py: if bboxes.shape[0] > max_num:`
("Converting a tensor to a Python boolean"): `multiclass_nms` keeps the boxes above the score
threshold, then caps them at `max_num` with a top-k only when there are more.
"""
import torch
import torch.nn as nn


class MultiClassNMSCap(nn.Module):
    def __init__(self, score_thr=0.3, max_num=4):
        super().__init__()
        self.score_thr, self.max_num = score_thr, max_num

    def forward(self, multi_bboxes, multi_scores):
        valid_mask = multi_scores > self.score_thr
        bboxes = multi_bboxes[valid_mask]
        scores = multi_scores[valid_mask]
        if bboxes.shape[0] > self.max_num:
            scores, inds = scores.topk(self.max_num)
            bboxes = bboxes[inds]
        return torch.cat([bboxes, scores[:, None]], -1)


example_args = (torch.rand(10, 4), torch.tensor([0.9, 0.1, 0.7, 0.2, 0.8, 0.35, 0.6, 0.4, 0.95, 0.05]))
