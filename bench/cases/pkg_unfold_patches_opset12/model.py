import torch
import torch.nn as nn

from .patches import extract_patches


class PatchMatcher(nn.Module):
    def __init__(self, size=8):
        super().__init__()
        self.size = size
        self.embed = nn.Linear(3 * size * size, 16)

    def forward(self, left, right):
        a = self.embed(extract_patches(left, self.size))
        b = self.embed(extract_patches(right, self.size))
        return torch.softmax(a @ b.transpose(1, 2), dim=-1)
