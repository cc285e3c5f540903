import torch.nn.functional as F


def per_sample_deconv(x, weight, out_channels, padding=1, stride=1):
    N, C, H, W = x.size()
    x = x.contiguous().view(1, N * C, H, W)
    out = F.conv_transpose2d(x, weight, padding=padding, stride=stride, groups=N)
    return out.contiguous().view(N, out_channels, H, W)
