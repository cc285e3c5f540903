import torch
import torch.nn as nn

from .utils import box_cxcywh_to_xyxy, select_queries


class QueryDetector(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.bbox = nn.Linear(dim, 4)
        self.register_buffer("idx", torch.tensor([0, 2, 4]))

    def forward(self, hs):
        q = select_queries(hs, self.idx)
        return box_cxcywh_to_xyxy(self.bbox(q).sigmoid())
