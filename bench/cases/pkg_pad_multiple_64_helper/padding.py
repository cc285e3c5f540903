import torch.nn.functional as F


def pad_to_multiple(x, m=64):
    H, W = x.shape[-2:]
    pad_h = (m - H % m) % m
    pad_w = (m - W % m) % m
    return F.pad(x, (0, pad_w, 0, pad_h)), H, W
