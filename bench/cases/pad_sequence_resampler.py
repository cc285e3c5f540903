"""Rebuilt from https://github.com/pytorch/pytorch/issues/127153
"[ONNX] pad_sequence() is not exportable, with neither legacy onnx.export nor with dynamo_export"

MiniCPM-Llama3-V's resampler batches the patch embeddings of several images of different sizes
with `torch.nn.utils.rnn.pad_sequence(..., batch_first=True)` before its attention; here two
images' patch sequences padded to one batch, then projected.
"""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence


class Resampler(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.kv_proj = nn.Linear(dim, dim)

    def forward(self, patches_a, patches_b):
        x = pad_sequence([patches_a, patches_b], batch_first=True, padding_value=0.0)
        return self.kv_proj(x)


example_args = (torch.randn(6, 16), torch.randn(4, 16))
