"""Rebuilt from https://github.com/pytorch/pytorch/issues/138853
"Using int(shape) in export would result in silent specialization"

The output size of `F.interpolate` computed with `int(x.shape[-2] / 1)` under Dim.DYNAMIC
height and width: the exported program returned the example's size for every input
(`math.trunc` instead of `int` avoided it).
"""
import torch
import torch.nn.functional as F


class M(torch.nn.Module):
    def forward(self, x):
        ori_size = (
            int(x.shape[-2] / 1),
            int(x.shape[-1] / 1),
        )
        x = F.interpolate(x, size=ori_size, mode="bilinear")
        return x


example_args = (torch.rand(1, 3, 28, 28),)
dynamic_shapes = {"x": {2: torch.export.Dim.DYNAMIC, 3: torch.export.Dim.DYNAMIC}}
