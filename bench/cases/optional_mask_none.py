"""Rebuilt from https://github.com/huggingface/optimum/issues/1043
"optional `attention_mask` in `ORTModelForxxx`"

A sequence classifier whose `attention_mask` is optional (`if attention_mask is None:` builds an
all-ones mask), as in transformers; the user wanted the exported model to accept the mask.
"""
import torch


class TinyClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(32, 8)
        self.cls = torch.nn.Linear(8, 2)

    def forward(self, input_ids, attention_mask=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        h = self.embed(input_ids) * attention_mask.unsqueeze(-1).to(torch.float32)
        pooled = h.sum(1) / attention_mask.sum(1, keepdim=True).clamp(min=1).to(torch.float32)
        return self.cls(pooled)


example_args = (torch.tensor([[3, 4, 5, 0], [7, 8, 0, 0]]),)
example_kwargs = {"attention_mask": torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])}
dynamic_shapes = {"input_ids": {0: torch.export.Dim("batch", min=1, max=64), 1: torch.export.Dim("seq", min=2, max=128)},
                  "attention_mask": {0: torch.export.Dim("batch", min=1, max=64), 1: torch.export.Dim("seq", min=2, max=128)}}
