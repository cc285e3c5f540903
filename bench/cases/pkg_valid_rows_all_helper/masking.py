import torch


def zero_invalid_rows(x):
    valid = torch.all(torch.isfinite(x), dim=-1, keepdim=True)
    return torch.where(valid, x, torch.zeros_like(x))
