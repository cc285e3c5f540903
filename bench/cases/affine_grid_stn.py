"""Rebuilt from https://github.com/pytorch/pytorch/issues/96449
"'aten::affine_grid_generator' to ONNX opset version 14 is not supported"

A spatial transformer network (as in microsoft/onnxruntime#7969): a localisation net regresses
`theta`, then `F.affine_grid(theta, x.size())` and `F.grid_sample` warp the input. The maintainers
said affine_grid_generator is not supported by torch.onnx.export and will not be.
"""
import torch
import torch.nn.functional as F


class STNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.AdaptiveAvgPool2d(1),
                                       torch.nn.Flatten(), torch.nn.Linear(8, 6))

    def forward(self, x):
        theta = self.loc(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)


example_args = (torch.randn(2, 3, 16, 16),)
opset_version = 16
