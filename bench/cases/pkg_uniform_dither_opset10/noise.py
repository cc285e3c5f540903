import torch


def dither(x, amount):
    noise = torch.empty_like(x).uniform_(-amount, amount)
    return x + noise
