"""Rebuilt from https://github.com/facebookresearch/sam2/issues/186
"export memory_attention module to onnx failed with RuntimeError: ScalarType ComplexFloat is an
unexpected tensor scalar type."

SAM 2's memory attention applies axial rotary position embeddings with complex numbers
(`torch.polar` for the frequencies, `torch.view_as_complex` on the queries and keys,
`torch.view_as_real` back), as LLaMA's `apply_rotary_emb` does.
"""
import torch


def compute_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


class RoPEAttention(torch.nn.Module):
    def __init__(self, dim=16, seq=8):
        super().__init__()
        self.q_proj = torch.nn.Linear(dim, dim)
        self.k_proj = torch.nn.Linear(dim, dim)
        self.dim = dim
        self.seq = seq

    def forward(self, x):
        q = self.q_proj(x)
        k = self.k_proj(x)
        freqs_cis = compute_cis(self.dim, self.seq)
        q_ = torch.view_as_complex(q.float().reshape(*q.shape[:-1], -1, 2))
        k_ = torch.view_as_complex(k.float().reshape(*k.shape[:-1], -1, 2))
        q_out = torch.view_as_real(q_ * freqs_cis).flatten(2)
        k_out = torch.view_as_real(k_ * freqs_cis).flatten(2)
        return (q_out @ k_out.transpose(-2, -1)).softmax(dim=-1)


example_args = (torch.randn(2, 8, 16),)
