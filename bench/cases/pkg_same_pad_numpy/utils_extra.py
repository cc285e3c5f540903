import math

import torch.nn as nn
import torch.nn.functional as F


class MaxPool2dStaticSamePadding(nn.Module):
    def __init__(self, kernel_size=3, stride=2):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size, stride)
        self.k, self.s = kernel_size, stride

    def forward(self, x):
        h, w = x.cpu().detach().numpy().shape[-2:]
        extra_h = (math.ceil(w / self.s) - 1) * self.s - w + self.k
        extra_v = (math.ceil(h / self.s) - 1) * self.s - h + self.k
        left, top = extra_h // 2, extra_v // 2
        x = F.pad(x, [left, extra_h - left, top, extra_v - top])
        return self.pool(x)
