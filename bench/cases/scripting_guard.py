"""Rebuilt from https://github.com/facebookresearch/fairseq/pull/4708
"[fairseq] Guard call to `shape_as_tensor` with `is_in_onnx_export()`"

fairseq's sinusoidal positional embedding branches on `torch.jit.is_scripting()` /
`torch.onnx.is_in_onnx_export()` to choose how the sequence length is read; the branches are
equivalent, only the way the size is obtained differs.
"""
import math

import torch


class SinusoidalPositionalEmbedding(torch.nn.Module):
    def __init__(self, embedding_dim=8):
        super().__init__()
        half = embedding_dim // 2
        emb = math.log(10000) / (half - 1)
        self.register_buffer("freqs", torch.exp(torch.arange(half, dtype=torch.float) * -emb))

    def forward(self, tokens):
        if not torch.jit.is_scripting() and torch.onnx.is_in_onnx_export():
            seq_len = torch.onnx.operators.shape_as_tensor(tokens)[1]
            positions = torch.arange(seq_len) + 1
        else:
            positions = torch.arange(tokens.size(1)) + 1
        args = positions.unsqueeze(1).float() * self.freqs.unsqueeze(0)
        emb = torch.cat([torch.sin(args), torch.cos(args)], dim=1)
        return emb.unsqueeze(0).expand(tokens.size(0), -1, -1)


example_args = (torch.tensor([[4, 5, 6, 7, 8], [1, 2, 3, 4, 5]]),)
dynamic_shapes = {"tokens": {1: torch.export.Dim("seq", min=2, max=256)}}
