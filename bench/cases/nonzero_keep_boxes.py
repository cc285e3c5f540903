"""Rebuilt from https://github.com/pytorch/pytorch/issues/140421
"torch.export.export of torch.nonzero failed"

`torch.export.export` of a module returning `torch.nonzero(x)` exported (the failure was in
compiling the exported module afterwards). Here the detection post-process that uses it: keep the
indices of scores above a threshold and gather boxes and scores with them. Believed fine for
export: the count is data-dependent but nothing branches on it.
"""
import torch
import torch.nn as nn


class ScoreFilter(nn.Module):
    def __init__(self, thresh=0.5):
        super().__init__()
        self.thresh = thresh

    def forward(self, boxes, scores):
        keep = torch.nonzero(scores > self.thresh).squeeze(1)
        return boxes.index_select(0, keep), scores.index_select(0, keep)


example_args = (torch.rand(10, 4), torch.tensor([0.9, 0.1, 0.7, 0.2, 0.8, 0.3, 0.6, 0.4, 0.95, 0.05]))
