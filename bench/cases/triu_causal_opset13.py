"""Rebuilt from https://github.com/pytorch/pytorch/issues/91998
"Exporting the operator ::triu to ONNX opset version 13 is not supported. Support for this operator
was added in version 14, try exporting with this version"

The user exported a text encoder (stable diffusion) with opset_version=13; its causal attention
mask is built with `torch.triu` (as in CLIP's `_build_causal_attention_mask` and fsmt, see
huggingface/transformers#9737).
"""
import torch


class CausalSelfAttention(torch.nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        mask = torch.full((t, t), float("-inf"))
        mask = torch.triu(mask, diagonal=1)
        attn = (q @ k.transpose(-2, -1)) * (d // self.heads) ** -0.5 + mask
        out = attn.softmax(dim=-1) @ v
        return self.proj(out.transpose(1, 2).reshape(b, t, d))


example_args = (torch.randn(2, 7, 16),)
opset_version = 13
