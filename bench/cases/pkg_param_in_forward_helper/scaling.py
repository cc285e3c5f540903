import torch
import torch.nn as nn


def make_scale(features, init=1.0):
    scale = nn.Parameter(torch.full((features,), init))
    return scale
