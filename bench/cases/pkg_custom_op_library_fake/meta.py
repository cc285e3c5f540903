import torch

from . import ops  # noqa: F401  (the op must exist before its fake kernel is registered)


@torch.library.register_fake("exlcase8g::gated")
def _gated_fake(x, g):
    return torch.empty_like(x)
