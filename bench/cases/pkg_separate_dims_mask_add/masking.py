import torch


def additive_mask(attention_mask, dtype):
    mask = attention_mask[:, :, None].to(dtype)
    return (1.0 - mask) * torch.finfo(dtype).min
