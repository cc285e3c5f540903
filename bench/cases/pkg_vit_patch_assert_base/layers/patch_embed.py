import torch.nn as nn


class PatchEmbedBase(nn.Module):
    def __init__(self, patch_size=14, in_chans=3, dim=16):
        super().__init__()
        self.patch_size = patch_size
        self.proj = nn.Conv2d(in_chans, dim, patch_size, patch_size)

    def embed(self, x):
        _, _, H, W = x.shape
        patch_H, patch_W = self.patch_size, self.patch_size
        assert H % patch_H == 0, f"Input image height {H} is not a multiple of patch height {patch_H}"
        assert W % patch_W == 0, f"Input image width {W} is not a multiple of patch width {patch_W}"
        x = self.proj(x)
        return x.flatten(2).transpose(1, 2)
