import torch
import torch.nn as nn

from .ops import get_reference_points


class MultiScaleEncoder(nn.Module):
    def __init__(self, channels=8):
        super().__init__()
        self.offsets = nn.Linear(2, channels)

    def forward(self, feat1, feat2):
        feats = [feat1, feat2]
        spatial_shapes = [f.shape[2:] for f in feats]
        spatial_shapes = torch.as_tensor(spatial_shapes, dtype=torch.long, device=feat1.device)
        reference_points = get_reference_points(spatial_shapes, feat1.device)
        src = torch.cat([f.flatten(2).transpose(1, 2) for f in feats], 1)
        return src + self.offsets(reference_points)
