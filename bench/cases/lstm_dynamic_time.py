"""Rebuilt from https://github.com/google-ai-edge/litert-torch/issues/1062
"nn.LSTM cannot convert with a dynamic sequence length (time axis specialized)"

A bidirectional `nn.LSTM` over a variable-length token sequence: torch.export's LSTM
decomposition specialised the time axis (an `Eq(seq, N)` guard) although it was declared dynamic.
"""
import torch


class ProsodyLSTM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(8, 8, batch_first=True, bidirectional=True)

    def forward(self, x):
        return self.lstm(x)[0]


example_args = (torch.randn(1, 16, 8),)
dynamic_shapes = {"x": {1: torch.export.Dim("seq", min=2, max=512)}}
