import torch.nn as nn

from .merge import merge_image_features


class TinyLlava(nn.Module):
    def __init__(self, vocab=32, dim=8, vision_dim=6, image_token_id=31):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.projector = nn.Sequential(nn.Linear(vision_dim, dim), nn.GELU(), nn.Linear(dim, dim))
        self.lm_head = nn.Linear(dim, vocab)
        self.image_token_id = image_token_id

    def forward(self, input_ids, image_features):
        inputs_embeds = self.embed_tokens(input_ids)
        image_features = self.projector(image_features)
        inputs_embeds = merge_image_features(input_ids, inputs_embeds, image_features, self.image_token_id)
        return self.lm_head(inputs_embeds)
