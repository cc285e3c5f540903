"""Rebuilt from https://github.com/pytorch/pytorch/pull/180406
"[BE] Improve error message around data dependent errors for .any()/.all() uses"

vLLM's `cast_overflow_tensors` (used by Voxtral, Qwen2.5-VL) guards a clamp with
`if tensors.isinf().any() or tensors.isnan().any():`, a branch on tensor data that breaks the
graph ("Data-dependent branching"); the PR suggests a branchless `torch.clamp`/`torch.where`.
"""
import torch


def cast_overflow_tensors(tensors, offset=1000.0):
    if tensors.isinf().any() or tensors.isnan().any():
        clamp_value = torch.finfo(tensors.dtype).max - offset
        tensors = torch.clamp(tensors, min=-clamp_value, max=clamp_value)
    return tensors


class EncoderLayer(torch.nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.fc1 = torch.nn.Linear(dim, 4 * dim)
        self.fc2 = torch.nn.Linear(4 * dim, dim)

    def forward(self, hidden_states):
        residual = hidden_states
        hidden_states = self.fc2(torch.nn.functional.gelu(self.fc1(hidden_states)))
        hidden_states = residual + hidden_states
        return cast_overflow_tensors(hidden_states)


example_args = (torch.randn(2, 5, 16),)
