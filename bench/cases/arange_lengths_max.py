"""Rebuilt from https://github.com/pytorch/pytorch/issues/163146
"[export] Data dependent error on slices in autograd::applySlicing"

The report's `sequence_mask(lengths)` takes `max_len = lengths.max().item()` and slices with it.
Here the tensor form without `.item()`: the 0-d max feeds `torch.arange` and the slice of the
padded batch, and the mask compares positions with the lengths. Believed fine for export.
"""
import torch
import torch.nn as nn


class MaskFromLengths(nn.Module):
    def forward(self, x, lengths):
        max_len = torch.max(lengths)
        ids = torch.arange(0, max_len, device=lengths.device)
        mask = ids < lengths.unsqueeze(1)
        return x[:, :max_len] * mask


example_args = (torch.randn(3, 6), torch.tensor([6, 4, 2]))
