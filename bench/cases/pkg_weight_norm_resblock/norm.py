import torch.nn as nn
from torch.nn.utils.parametrizations import weight_norm


def wn_conv1d(channels, kernel_size, dilation):
    padding = (kernel_size * dilation - dilation) // 2
    return weight_norm(nn.Conv1d(channels, channels, kernel_size, dilation=dilation, padding=padding))
