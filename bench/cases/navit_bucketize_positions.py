"""Rebuilt from https://github.com/pytorch/pytorch/issues/170548
"unable to export a model with bucketize"

Idefics2/SigLIP-NaViT-style patch positions: fractional coordinates stepped by
`1 / mask.sum()` with `torch.arange`, then bucketed with `torch.bucketize(..., boundaries,
right=True)` ("GuardOnDataDependentSymNode: Could not guard on data-dependent expression").
"""
import torch
import torch.nn as nn


class PatchPositions(nn.Module):
    def __init__(self, num_patches_per_side=5):
        super().__init__()
        self.register_buffer("boundaries", torch.arange(1 / num_patches_per_side, 1.0, 1 / num_patches_per_side))

    def forward(self, mask):
        w_len = 1.0 / mask.sum()
        fractional_coords_w = torch.arange(0.0, 1 - 1e-6, w_len)
        return torch.bucketize(fractional_coords_w, self.boundaries, right=True)


_m = torch.zeros(10, dtype=torch.bool)
_m[::2] = True
example_args = (_m,)
