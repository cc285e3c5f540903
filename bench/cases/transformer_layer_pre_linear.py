"""Rebuilt from https://github.com/pytorch/pytorch/issues/117209
"torch.onnx.export the torch.nn.TransformerEncoderLayer, the dynamic_axes work not right"

A LayerNorm / Dropout / Linear / ReLU `nn.Sequential` then a batch-first
`nn.TransformerEncoderLayer(d_model=96, nhead=4, dim_feedforward=128)`, exported with
`dynamic_axes` on batch_size and seq_len: "I cannot use the onnx model to handle data with
different seq_len". The model's dims come from a config class, as in the report.
"""
import torch
import torch.nn as nn


class cfg:
    data_input_dim = 12
    drop_rate = 0.3


class TestModel(nn.Module):
    def __init__(self):
        super(TestModel, self).__init__()
        self.pre_linear = nn.Sequential(
            nn.LayerNorm(normalized_shape=cfg.data_input_dim),
            nn.Dropout(p=cfg.drop_rate),
            nn.Linear(cfg.data_input_dim, 96),
            nn.ReLU(),
        )
        self.encoder_layer = nn.TransformerEncoderLayer(d_model=96, nhead=4, dim_feedforward=128, dropout=0.3,
                                                        batch_first=True)
        self.head = nn.Linear(96, 1)

    def forward(self, x):
        x = self.pre_linear(x)
        x = self.encoder_layer(x)
        return self.head(x.mean(dim=1))


example_args = (torch.randn(4, 30, 12),)
dynamic_shapes = {"x": {0: torch.export.Dim("batch_size", min=1, max=512), 1: torch.export.Dim("seq_len", min=2, max=256)}}
