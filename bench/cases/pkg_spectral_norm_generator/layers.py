import torch.nn as nn
from torch.nn.utils import spectral_norm


def custom_conv_layer(ni, nf, ks=3, stride=1):
    conv = nn.Conv2d(ni, nf, ks, stride=stride, padding=ks // 2, bias=False)
    return nn.Sequential(spectral_norm(conv), nn.ReLU())
