import torch

from .ops import keep_rows


@keep_rows.register_fake
def _(x, thr):
    ctx = torch.library.get_ctx()
    n = ctx.new_dynamic_size()
    return x.new_empty((n, x.shape[1]))
