import torch


def quantile_clip(x, noise):
    q = torch.tensor([noise, 1.0 - noise], device=x.device, dtype=x.dtype)
    lo, hi = torch.quantile(x, q, dim=-1, keepdim=True)
    return (x.clamp(lo, hi) - lo) / (hi - lo + 1e-6)
