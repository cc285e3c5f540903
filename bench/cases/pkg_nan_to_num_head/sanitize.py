import torch


def finite(y):
    return torch.nan_to_num(y)
