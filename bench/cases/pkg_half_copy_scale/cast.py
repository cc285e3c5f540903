import torch


def cast_scaled(x, factor):
    y = x.to(dtype=torch.float64, copy=True)
    y.mul_(factor)
    return y
