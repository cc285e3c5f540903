import torch.nn.functional as F


def resize_to(x, ref, mode="bilinear"):
    return F.interpolate(x, size=ref.shape[2:], mode=mode, align_corners=False)
