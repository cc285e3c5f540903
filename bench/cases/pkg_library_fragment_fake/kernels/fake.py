import torch

from . import ops  # noqa: F401  (defines the operator first)


@torch.library.register_fake("exlcase10e::foo")
def _(x):
    return x.new_empty(x.shape)
