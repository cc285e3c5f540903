import torch


def temperature_scale(logits, temperature):
    t = temperature.item()
    scale = torch.tensor([t], dtype=logits.dtype)
    return logits / scale
