import torch.nn as nn


class CenterCrop(nn.Module):
    def __init__(self, crop_size):
        super().__init__()
        self.crop_size = crop_size

    def forward(self, x):
        assert x.shape[2] == x.shape[3] and x.shape[2] > self.crop_size + 2
        offset = (x.shape[2] - self.crop_size) // 2
        return x[:, :, offset:offset + self.crop_size, offset:offset + self.crop_size]
