"""Rebuilt from https://github.com/open-mmlab/mmdeploy/issues/2170
"[Bug] Error when converting RTM-det model to onnx"

The user saw TracerWarnings during ONNX export at `num_topk = min(topk, valid_idxs.size(0))`
(mmdet's filter_scores_and_topk): the number of boxes above the score threshold is data.
"""
import torch


class FilterScoresAndTopk(torch.nn.Module):
    def __init__(self, score_thr=0.3, topk=5):
        super().__init__()
        self.score_thr = score_thr
        self.topk = topk

    def forward(self, scores, boxes):
        valid_mask = scores > self.score_thr
        flat = scores[valid_mask]
        valid_idxs = torch.nonzero(valid_mask)
        num_topk = min(self.topk, valid_idxs.size(0))
        flat, idxs = flat.sort(descending=True)
        flat = flat[:num_topk]
        keep = valid_idxs[idxs[:num_topk]]
        keep_idxs, labels = keep.unbind(dim=1)
        return flat, labels, boxes[keep_idxs]


example_args = (torch.tensor([[0.9, 0.1], [0.2, 0.8], [0.5, 0.05], [0.31, 0.7], [0.1, 0.2],
                              [0.95, 0.6], [0.4, 0.33], [0.0, 0.1]]),
                torch.randn(8, 4))
