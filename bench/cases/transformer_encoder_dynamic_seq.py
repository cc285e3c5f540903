"""Rebuilt from https://github.com/pytorch/pytorch/issues/110347
"ONNX export: TransformerEncoder is exported with fixed input dims"

An embedding followed by `nn.TransformerEncoder` (batch_first, `enable_nested_tensor=True`),
exported with a dynamic sequence length; the legacy export fixed the input dims, the maintainers
pointed to the dynamo-based exporter.
"""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(15, 32)
        enc_layer = nn.TransformerEncoderLayer(32, nhead=4, dim_feedforward=32, dropout=0.2, batch_first=True)
        self.attn_layers = nn.TransformerEncoder(enc_layer, num_layers=2, enable_nested_tensor=True)

    def forward(self, x):
        x = self.emb(x)
        return self.attn_layers(x)


example_args = (torch.randint(0, 15, (2, 20)),)
dynamic_shapes = {"x": {1: torch.export.Dim("seq", min=2, max=64)}}
