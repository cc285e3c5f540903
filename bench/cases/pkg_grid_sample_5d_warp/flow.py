import torch.nn.functional as F


def warp_volume(volume, grid):
    """Sample a (N, C, D, H, W) feature volume at a (N, D, H, W, 3) grid of normalised coordinates."""
    return F.grid_sample(volume, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
