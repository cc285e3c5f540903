import torch.nn.functional as F


def resize_to_grid(x, size=(8, 8)):
    return F.interpolate(x, size=size, mode="bilinear", align_corners=False)
