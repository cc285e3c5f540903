import torch

from .ops import clipped_gelu


@clipped_gelu.register_fake
def _(x, limit):
    return torch.empty_like(x)
