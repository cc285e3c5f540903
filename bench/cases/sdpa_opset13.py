"""Rebuilt from https://github.com/huggingface/setfit/issues/560
"Opset Issue while exporting to onnx"

A sentence-transformers body whose attention calls `F.scaled_dot_product_attention`, exported by
setfit's `export_onnx(..., opset=12)` and then 13: "Exporting the operator
'aten::scaled_dot_product_attention' to ONNX opset version 13 is not supported. Support for this
operator was added in version 14".
"""
import torch
import torch.nn.functional as F


class SdpaSelfAttention(torch.nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.query = torch.nn.Linear(dim, dim)
        self.key = torch.nn.Linear(dim, dim)
        self.value = torch.nn.Linear(dim, dim)

    def forward(self, hidden_states, attention_mask):
        b, t, d = hidden_states.shape
        q = self.query(hidden_states).view(b, t, self.heads, -1).transpose(1, 2)
        k = self.key(hidden_states).view(b, t, self.heads, -1).transpose(1, 2)
        v = self.value(hidden_states).view(b, t, self.heads, -1).transpose(1, 2)
        mask = attention_mask[:, None, None, :].bool()
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return out.transpose(1, 2).reshape(b, t, d)


example_args = (torch.randn(2, 6, 16), torch.ones(2, 6, dtype=torch.long))
opset_version = 13
