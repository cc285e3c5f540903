"""Rebuilt from https://github.com/pytorch/pytorch/issues/198064
"[dynamic shapes] `round(x.shape[0], -1)` is a no-op on SymInt (`SymInt.__round__` ignores a
negative `ndigits`): bucketed sizes computed with `round(n, -k)` silently differ from eager"

A dynamic length bucketed with `round(n, -1)` to pick a scaling constant: with a symbolic size
the round disappeared and the result silently differed from eager.
"""
import torch


class Bucketed(torch.nn.Module):
    def forward(self, x):
        return x * round(x.shape[0] * 5, -1)


example_args = (torch.ones(14),)
dynamic_shapes = {"x": {0: torch.export.Dim("n", min=2, max=1024)}}
