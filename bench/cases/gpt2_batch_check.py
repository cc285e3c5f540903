"""Rebuilt from https://github.com/huggingface/transformers/issues/17773
"Converting a tensor to a Python boolean might cause the trace to be incorrect when converting gpt2
to onnx format"

GPT-2's forward checks `if batch_size <= 0: raise ValueError(...)` before reshaping the attention
mask with `attention_mask.view(batch_size, -1)`; the ONNX export printed a TracerWarning on the check.
"""
import torch


class MaskPrep(torch.nn.Module):
    def forward(self, input_ids, attention_mask):
        batch_size = input_ids.shape[0]
        if batch_size <= 0:
            raise ValueError("batch_size has to be defined and > 0")
        attention_mask = attention_mask.view(batch_size, -1)
        attention_mask = attention_mask[:, None, None, :].to(torch.float32)
        return (1.0 - attention_mask) * torch.finfo(torch.float32).min


batch = torch.export.Dim("batch", min=1, max=64)
seq = torch.export.Dim("seq", min=2, max=128)
example_args = (torch.tensor([[5, 6, 7], [8, 9, 10]]), torch.tensor([[1, 1, 1], [1, 1, 0]]))
dynamic_shapes = {"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}}
