import torch.nn as nn

from .flow import warp_volume


class WarpingNetwork(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.fuse = nn.Conv3d(channels, channels, 3, padding=1)

    def forward(self, feature_3d, deformation):
        warped = warp_volume(feature_3d, deformation)
        return self.fuse(warped).relu()
