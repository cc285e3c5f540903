"""Rebuilt from https://github.com/pytorch/pytorch/issues/138852
"[torch.export] round is not an allowed operator type"

The output size of `F.interpolate` computed with `round(x.shape[-2] / 1)` under Dim.DYNAMIC
height and width: "SpecViolationError: Operator '<built-in function round>' is not an allowed
operator type" (`math.trunc(x + 0.5)` worked).
"""
import torch
import torch.nn.functional as F


class M(torch.nn.Module):
    def forward(self, x):
        ori_size = (
            round(x.shape[-2] / 1),
            round(x.shape[-1] / 1),
        )
        x = F.interpolate(x, size=ori_size, mode="bilinear")
        return x


example_args = (torch.rand(1, 3, 28, 28),)
dynamic_shapes = {"x": {2: torch.export.Dim.DYNAMIC, 3: torch.export.Dim.DYNAMIC}}
