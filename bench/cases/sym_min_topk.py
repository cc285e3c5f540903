"""Rebuilt from https://github.com/pytorch/pytorch/issues/108830
"torch._export.pass_base.ExportPassBaseError: Unsupported target type: <function sym_min ...>"

torchvision's RetinaNet post-processing keeps `torch.sym_min(num_anchors, 1000)` candidates per
level; exporting it stopped at the sym_min call.
"""
import torch


class PostprocessTopk(torch.nn.Module):
    def __init__(self, topk_candidates=6):
        super().__init__()
        self.topk_candidates = topk_candidates

    def forward(self, scores):
        flat = scores.flatten()
        num_topk = torch.sym_min(flat.size(0), self.topk_candidates)
        top, idxs = flat.topk(num_topk)
        return top, idxs


example_args = (torch.randn(2, 5),)
dynamic_shapes = {"scores": {0: torch.export.Dim("n", min=1, max=64)}}
