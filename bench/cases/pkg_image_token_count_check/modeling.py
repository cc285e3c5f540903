import torch.nn as nn

from .merging import merge_image_features


class TinyPaliGemma(nn.Module):
    def __init__(self, vocab=10, dim=8, image_token_id=1):
        super().__init__()
        self.image_token_id = image_token_id
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, input_ids, image_features):
        inputs_embeds = self.embed(input_ids)
        mask = (input_ids == self.image_token_id).unsqueeze(-1).expand_as(inputs_embeds)
        merged = merge_image_features(inputs_embeds, self.proj(image_features), mask)
        return merged.sum(-1)
