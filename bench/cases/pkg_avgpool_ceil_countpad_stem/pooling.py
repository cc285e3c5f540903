import torch.nn.functional as F


def stem_pool(x):
    return F.avg_pool2d(x, kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=True)
