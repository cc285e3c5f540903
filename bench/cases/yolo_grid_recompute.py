"""Rebuilt from https://github.com/ultralytics/yolov3/issues/766
"Convert onnx successfully but has TracerWarnings"

The YOLO layer rebuilds its cached grid when the feature size changes:
`if (self.nx, self.ny) != (nx, ny): self.create_grids(...)` ("TracerWarning: Converting a tensor
to a Python boolean might cause the trace to be incorrect"). Here with the input's H/W dynamic.
"""
import torch
import torch.nn as nn


class YOLOLayer(nn.Module):
    def __init__(self, na=3, no=6, stride=32):
        super().__init__()
        self.na, self.no, self.stride = na, no, stride
        self.nx, self.ny = 0, 0
        self.grid = torch.zeros(1)

    def create_grids(self, ng):
        self.nx, self.ny = ng
        yv, xv = torch.meshgrid(torch.arange(self.ny), torch.arange(self.nx), indexing="ij")
        self.grid = torch.stack((xv, yv), 2).view(1, 1, self.ny, self.nx, 2).float()

    def forward(self, p):
        bs, _, ny, nx = p.shape
        if (self.nx, self.ny) != (nx, ny):
            self.create_grids((nx, ny))
        p = p.view(bs, self.na, self.no, self.ny, self.nx).permute(0, 1, 3, 4, 2)
        xy = (torch.sigmoid(p[..., :2]) + self.grid) * self.stride
        return torch.cat((xy, p[..., 2:]), -1).view(bs, -1, self.no)


example_args = (torch.randn(1, 18, 4, 5),)
dynamic_shapes = {"p": {2: torch.export.Dim("h", min=2, max=32), 3: torch.export.Dim("w", min=2, max=32)}}
