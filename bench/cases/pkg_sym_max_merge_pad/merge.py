import torch


def merge_padded(x, y):
    s1 = max(x.shape[0], y.shape[0])
    s2 = max(x.shape[1], y.shape[1])
    z = torch.zeros((s1, s2), dtype=x.dtype)
    z[: x.shape[0], : x.shape[1]] = x
    z[: y.shape[0], : y.shape[1]] += y
    return z
