import torch


def crop_to_length(x, length):
    n = length.item()
    return x.narrow(1, 0, n)
