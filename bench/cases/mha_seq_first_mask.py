"""Rebuilt from https://github.com/pytorch/pytorch/issues/120075
"MultiheadAttention can not be exported into onnx with dynamic shapes"

A thin wrapper around a sequence-first `nn.MultiheadAttention(512, 8, batch_first=False)` with
a boolean attention mask, exported with `dynamic_axes` on the number of elements (dim 0 of `x`,
both dims of `mask`); the model runs at the export size only.
"""
import torch


class MHAWrapper(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mha1 = torch.nn.MultiheadAttention(64, 8, batch_first=False)

    def forward(self, x, mask):
        return self.mha1(x, x, x, attn_mask=mask, need_weights=False)[0]


num_elem = torch.export.Dim("num_elem", min=2, max=128)
example_args = (torch.rand(size=(62, 1, 64)), torch.zeros(62, 62, dtype=torch.bool))
dynamic_shapes = {"x": {0: num_elem}, "mask": {0: num_elem, 1: num_elem}}
