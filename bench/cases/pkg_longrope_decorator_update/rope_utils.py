from functools import wraps

import torch


def longrope_frequency_update(module, position_ids):
    seq_len = torch.max(position_ids) + 1
    if seq_len > module.original_max_position_embeddings:
        module.inv_freq = module.long_inv_freq
    else:
        module.inv_freq = module.original_inv_freq


def dynamic_rope_update(rope_forward):
    @wraps(rope_forward)
    def wrapper(self, x, position_ids):
        longrope_frequency_update(self, position_ids)
        return rope_forward(self, x, position_ids)

    return wrapper
