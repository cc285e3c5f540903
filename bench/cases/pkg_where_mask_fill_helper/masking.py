import torch


def masked_scores(scores, attention_mask):
    pad = attention_mask == 0
    scores = scores.masked_fill(pad, torch.finfo(scores.dtype).min)
    all_pad = pad.all(dim=-1, keepdim=True)
    return torch.where(all_pad, torch.zeros_like(scores), scores)
