import torch.nn.functional as F


def upsample_nearest(x, scale):
    return F.interpolate(x, scale_factor=scale, mode="nearest")
