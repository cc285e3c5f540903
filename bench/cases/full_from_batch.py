"""Rebuilt from https://github.com/roboflow/rf-detr/issues/949
"Current onnx and tensorRT exports don't support Dynamic Batch shapes"

`gen_encoder_output_proposals` unpacks `N_, S_, C_ = memory.shape` and builds
`torch.full((N_, H_), ...)` / `.view(N_, 1, 1, 2)` from those Python ints: the ONNX graph kept
the example batch (8) as a constant although dynamic_axes declared the batch dynamic.
"""
import torch


class Proposals(torch.nn.Module):
    def __init__(self, h=4, w=4):
        super().__init__()
        self.h, self.w = h, w

    def forward(self, memory):
        N_, S_, C_ = memory.shape
        valid = torch.full((N_, self.h), 1.0)
        scale = torch.cat([valid.sum(1, keepdim=True), valid.sum(1, keepdim=True)], 1).view(N_, 1, 1, 2)
        ys, xs = torch.meshgrid(torch.arange(self.h, dtype=torch.float), torch.arange(self.w, dtype=torch.float),
                                indexing="ij")
        grid = (torch.stack([xs, ys], -1).unsqueeze(0).expand(N_, -1, -1, -1) + 0.5) / scale
        return memory + grid.view(N_, -1, 2).sum(-1, keepdim=True)


example_args = (torch.randn(8, 16, 4),)
dynamic_shapes = {"memory": {0: torch.export.Dim("batch", min=1, max=64)}}
