import torch


def pad_by_height(I):
    H = I.size(2)  # H is symbolic (dynamic_shape)
    x = torch.nn.functional.pad(I, (0, 0, 0, H), mode="replicate")
    return x, H
