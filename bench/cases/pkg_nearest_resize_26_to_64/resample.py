import torch.nn.functional as F


def resize_row(x, width):
    return F.interpolate(x, size=(1, width), mode="nearest")
