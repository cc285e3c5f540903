import torch
import torch.nn as nn

from .transformer import TokenToImageAttention


class MaskDecoder(nn.Module):
    def __init__(self, dim=8, num_mask_tokens=2):
        super().__init__()
        self.iou_token = nn.Embedding(1, dim)
        self.mask_tokens = nn.Embedding(num_mask_tokens, dim)
        self.num_mask_tokens = num_mask_tokens
        self.transformer = TokenToImageAttention(dim)

    def predict_masks(self, image_embeddings, image_pe, sparse_prompt_embeddings):
        output_tokens = torch.cat([self.iou_token.weight, self.mask_tokens.weight], dim=0)
        output_tokens = output_tokens.unsqueeze(0).expand(sparse_prompt_embeddings.size(0), -1, -1)
        tokens = torch.cat((output_tokens, sparse_prompt_embeddings), dim=1)
        src = torch.repeat_interleave(image_embeddings, tokens.shape[0], dim=0)
        pos_src = torch.repeat_interleave(image_pe, tokens.shape[0], dim=0)
        b, c, h, w = src.shape
        hs, keys = self.transformer(src + pos_src, tokens)
        mask_tokens_out = hs[:, 1:(1 + self.num_mask_tokens), :]
        masks = (mask_tokens_out @ keys.transpose(1, 2)).view(b, -1, h, w)
        return masks, hs[:, 0, :]
