import torch
import torch.nn as nn


class Dither(nn.Module):
    def __init__(self, scale=0.0, seed=0):
        super().__init__()
        self.scale = scale
        self.generator = torch.Generator().manual_seed(seed)

    def forward(self, img):
        noise = torch.rand(img.shape, generator=self.generator, dtype=img.dtype, device=img.device)
        return img + self.scale * noise
