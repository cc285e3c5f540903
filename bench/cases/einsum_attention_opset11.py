"""Rebuilt from https://github.com/open-mmlab/mmdeploy/issues/1624
"[Bug] RuntimeError: Exporting the operator einsum to ONNX opset version 11 is not supported.
Support for this operator was added in version 12, try exporting with this version."

An mmaction2 video transformer whose attention is written with `torch.einsum`, exported with
mmdeploy's default opset 11.
"""
import torch


class EinsumAttention(torch.nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.to_qkv = torch.nn.Linear(dim, dim * 3, bias=False)
        self.to_out = torch.nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q = q.reshape(b, n, self.heads, -1).transpose(1, 2)
        k = k.reshape(b, n, self.heads, -1).transpose(1, 2)
        v = v.reshape(b, n, self.heads, -1).transpose(1, 2)
        dots = torch.einsum("bhid,bhjd->bhij", q, k) * self.scale
        attn = dots.softmax(dim=-1)
        out = torch.einsum("bhij,bhjd->bhid", attn, v)
        return self.to_out(out.transpose(1, 2).reshape(b, n, d))


example_args = (torch.randn(2, 8, 16),)
opset_version = 11
