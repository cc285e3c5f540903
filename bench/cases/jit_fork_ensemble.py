"""Rebuilt from https://github.com/pytorch/translate/pull/310
"Fork/join parallelism for ensemble export modules"

pytorch/translate's `EncoderEnsemble` runs each model of the ensemble with `torch.jit._fork` and
joins with `torch.jit._wait` (no-ops in Python, parallel in TorchScript). Here a two-member
ensemble written with the public `torch.jit.fork` / `torch.jit.wait`.
"""
import torch
import torch.nn as nn


class EncoderEnsemble(nn.Module):
    def __init__(self):
        super().__init__()
        self.models = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])

    def forward(self, x):
        futures = [torch.jit.fork(m, x) for m in self.models]
        outs = [torch.jit.wait(f) for f in futures]
        return torch.stack(outs).mean(0)


example_args = (torch.randn(2, 4),)
