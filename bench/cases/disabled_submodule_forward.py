"""Rebuilt from https://github.com/pytorch/pytorch/issues/160059
"torch.jit.script fails with 'undefined value' error when module has @torch.compiler.disable decorator"

The reporter marks problematic parts of a DETR detector with `@torch.compiler.disable` (for
`torch.compile` training, "like the main forward pass") and still needs ONNX / PT2 export. Here
the decorator sits on the `forward` of a post-processing submodule that the detector calls.
"""
import torch
import torch.nn as nn


class BoxPostProcess(nn.Module):
    @torch.compiler.disable
    def forward(self, logits, boxes):
        scores = logits.softmax(-1)[..., :-1].max(-1).values
        return scores, boxes.sigmoid()


class Detector(nn.Module):
    def __init__(self, dim=8, num_classes=3):
        super().__init__()
        self.class_embed = nn.Linear(dim, num_classes + 1)
        self.bbox_embed = nn.Linear(dim, 4)
        self.postprocess = BoxPostProcess()

    def forward(self, hs):
        return self.postprocess(self.class_embed(hs), self.bbox_embed(hs))


model = Detector()
example_args = (torch.randn(2, 5, 8),)
