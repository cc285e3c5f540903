"""Rebuilt from https://github.com/open-mmlab/mmdeploy/issues/2807
"[Bug] DDQDETR export to onnx error"

DDQ-DETR's decoder layer repeats its cached distinct-query mask per head with
`attn_mask.repeat(len(query) * self.cache_dict['num_heads'], 1, 1)`; the export printed
"TracerWarning: Using len to get tensor shape might cause the trace to be incorrect". Here the
self-attention of one decoder layer with the batch of queries dynamic.
"""
import torch
import torch.nn as nn


class DDQDecoderLayer(nn.Module):
    def __init__(self, dim=16, num_heads=2, num_queries=6):
        super().__init__()
        self.cache_dict = {"num_heads": num_heads}
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.register_buffer("distinct_mask", torch.zeros(1, num_queries, num_queries, dtype=torch.bool))

    def forward(self, query):
        attn_mask = self.distinct_mask.repeat(len(query) * self.cache_dict["num_heads"], 1, 1)
        out, _ = self.attn(query, query, query, attn_mask=attn_mask)
        return out


example_args = (torch.randn(3, 6, 16),)
dynamic_shapes = {"query": {0: torch.export.Dim("batch", min=2, max=32)}}
