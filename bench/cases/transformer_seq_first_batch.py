"""Rebuilt from https://github.com/pytorch/pytorch/issues/122321
"Batch size and sequence length can't be varied if you export a transformer to onnx"

A sequence-first `nn.Transformer` (the default `batch_first=False`) exported with dynamic batch
and sequence axes; the reporter narrowed it to "just the batch size I can't vary ... related to
the reshape operations on q, k and v in the multi_head_attention_forward function".
"""
import torch
import torch.nn as nn


class Seq2Seq(nn.Module):
    def __init__(self, d_model=32):
        super().__init__()
        self.transformer = nn.Transformer(d_model=d_model, nhead=4, num_encoder_layers=1, num_decoder_layers=1,
                                          dim_feedforward=64, dropout=0.0)

    def forward(self, src, tgt):
        return self.transformer(src, tgt)


batch = torch.export.Dim("batch", min=1, max=32)
example_args = (torch.randn(10, 2, 32), torch.randn(7, 2, 32))
dynamic_shapes = {"src": {0: torch.export.Dim("s", min=2, max=64), 1: batch},
                  "tgt": {0: torch.export.Dim("t", min=2, max=64), 1: batch}}
