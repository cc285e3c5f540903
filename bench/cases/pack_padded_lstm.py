"""Rebuilt from https://github.com/pytorch/pytorch/issues/49936
"[ONNX] Export model with pack_padded_sequence to ONNX fails"

A sequence model takes the padded batch and the per-sequence lengths, packs them with
`nn.utils.rnn.pack_padded_sequence(..., enforce_sorted=False)`, runs an LSTM and unpacks with
`pad_packed_sequence`, the usual recipe for variable-length speech/text batches.
"""
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class PackedLSTM(torch.nn.Module):
    def __init__(self, dim=8, hidden=16):
        super().__init__()
        self.lstm = torch.nn.LSTM(dim, hidden, batch_first=True)
        self.out = torch.nn.Linear(hidden, 4)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        return self.out(out)


example_args = (torch.randn(3, 6, 8), torch.tensor([6, 4, 2]))
