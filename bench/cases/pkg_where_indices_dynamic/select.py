import torch


def positive_coords(x):
    rows, cols = torch.where(x > 0)
    return torch.stack((rows, cols), dim=1)
