import torch
import torch.nn as nn

from .pointnet2_utils import farthest_point_sample, index_points


class PointNetSetAbstraction(nn.Module):
    def __init__(self, npoint, in_channel, mlp):
        super().__init__()
        self.npoint = npoint
        layers = []
        last = in_channel
        for out in mlp:
            layers += [nn.Linear(last, out), nn.ReLU()]
            last = out
        self.mlp = nn.Sequential(*layers)

    def forward(self, xyz):
        fps_idx = farthest_point_sample(xyz, self.npoint)
        new_xyz = index_points(xyz, fps_idx)
        feat = self.mlp(new_xyz)
        return torch.max(feat, 1)[0]
