import math

import torch.nn.functional as F


def interpolate_pos_encoding(pos_embed, height, width, patch_size):
    num_positions = pos_embed.shape[1]
    dim = pos_embed.shape[-1]
    h0 = height // patch_size
    w0 = width // patch_size
    h0, w0 = h0 + 0.1, w0 + 0.1
    side = int(math.sqrt(num_positions))
    grid = pos_embed.reshape(1, side, side, dim).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, scale_factor=(h0 / side, w0 / side), mode="bicubic", align_corners=False)
    return grid.permute(0, 2, 3, 1).reshape(1, -1, dim)
