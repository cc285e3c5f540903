"""Rebuilt from https://github.com/open-mmlab/mmdetection/issues/6244
"GFL导出onnx时遇到错误" (error when exporting GFL to ONNX)

GFL's `Integral` turns the per-side distributions of the box regression into distances with
`F.linear(softmax(x), project)`, where `project = torch.linspace(0, reg_max, reg_max + 1)` (a
buffer in mmdetection; here built in `forward`), with the number of anchors dynamic. Believed
fine: the linspace size is a constant.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Integral(nn.Module):
    def __init__(self, reg_max=7):
        super().__init__()
        self.reg_max = reg_max

    def forward(self, x):
        project = torch.linspace(0, self.reg_max, self.reg_max + 1, device=x.device)
        x = F.softmax(x.reshape(-1, self.reg_max + 1), dim=1)
        return F.linear(x, project.type_as(x)).reshape(-1, 4)


example_args = (torch.randn(6, 4 * 8),)
dynamic_shapes = {"x": {0: torch.export.Dim("anchors", min=2, max=4096)}}
