import torch
import torch.nn as nn

from .vision_utils import interpolate_pos_encoding


class PatchEmbeddings(nn.Module):
    def __init__(self, dim=16, patch_size=8, image_size=32):
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Conv2d(3, dim, patch_size, stride=patch_size)
        self.pos_embed = nn.Parameter(torch.randn(1, (image_size // patch_size) ** 2, dim))

    def forward(self, pixel_values):
        _, _, height, width = pixel_values.shape
        x = self.proj(pixel_values).flatten(2).transpose(1, 2)
        return x + interpolate_pos_encoding(self.pos_embed, height, width, self.patch_size)
