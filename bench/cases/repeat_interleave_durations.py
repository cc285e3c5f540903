"""Rebuilt from https://github.com/ming024/FastSpeech2/issues/55
"[suggestion] a simple LengthRegulator"

FastSpeech2's length regulator expands each phoneme's hidden state by its predicted duration with
`torch.repeat_interleave(unbatch_x, unbatch_duration, axis=0)` (replacing a Python loop, with
tracing in mind). The output length depends on the durations. Believed fine for export.
"""
import torch
import torch.nn as nn


class LengthRegulator(nn.Module):
    def forward(self, x, durations):
        return torch.repeat_interleave(x, durations, dim=0)


example_args = (torch.randn(4, 3), torch.tensor([1, 2, 0, 3]))
