"""Rebuilt from https://github.com/pytorch/pytorch/issues/128906
"Unable to export Phi-3-vision model to exported program"

Phi-3-vision's image embedding finds the image placeholder tokens with
`positions = torch.nonzero(input_ids < 0, as_tuple=False)` and branches on
`if len(positions.tolist()) > 0:`; the maintainers traced the failure to that line ("It comes from
if len(positions.tolist()) > 0").
"""
import torch
import torch.nn as nn


class Phi3ImageEmbedding(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.img_proj = nn.Linear(dim, dim)

    def forward(self, input_ids, image_features):
        positions = torch.nonzero(input_ids < 0, as_tuple=False)
        hidden = self.wte(input_ids.clamp(min=0))
        if len(positions.tolist()) > 0:
            hidden = hidden + self.img_proj(image_features).mean(dim=1, keepdim=True)
        return hidden


example_args = (torch.tensor([[-1, -1, 5, 6, 7, 8]]), torch.randn(1, 4, 16))
