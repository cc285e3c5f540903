import math

import torch.nn.functional as F


def interpolate_pos_encoding(pos_embed, h, w, patch_size):
    N = pos_embed.shape[1]
    dim = pos_embed.shape[-1]
    w0 = w // patch_size
    h0 = h // patch_size
    M = int(math.sqrt(N))
    w0, h0 = w0 + 0.1, h0 + 0.1
    patch = pos_embed.reshape(1, M, M, dim).permute(0, 3, 1, 2)
    patch = F.interpolate(patch, scale_factor=(h0 / M, w0 / M), mode="bicubic", align_corners=False)
    assert int(w0) == patch.shape[-1]
    return patch.permute(0, 2, 3, 1).reshape(1, -1, dim)
