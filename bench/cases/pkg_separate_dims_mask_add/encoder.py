import torch.nn as nn

from .masking import additive_mask


class TinyEncoder(nn.Module):
    def __init__(self, vocab=50, dim=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.ffn = nn.Linear(dim, dim)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids)
        bias = additive_mask(attention_mask, h.dtype)
        h = self.ffn(h) + bias
        return h.softmax(-1)
