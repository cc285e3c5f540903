import torch


def normalize_by_size(xy, feat):
    h, w = feat.shape[-2], feat.shape[-1]
    scale = torch.tensor([w, h], dtype=torch.float32)
    return xy / scale
