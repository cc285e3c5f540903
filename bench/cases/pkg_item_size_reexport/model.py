import torch.nn as nn

from .layers import crop_to_length


class CropModel(nn.Module):
    def forward(self, x, length):
        return crop_to_length(x, length) * 2
