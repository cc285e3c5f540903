import torch
import torch.nn as nn

from .anomaly_map import nearest_neighbors


class PatchcoreModel(nn.Module):
    def __init__(self, channels=8, bank=32, num_neighbors=3):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, channels, 3, stride=2, padding=1), nn.ReLU())
        self.register_buffer("memory_bank", torch.randn(bank, channels))
        self.num_neighbors = num_neighbors

    def forward(self, x):
        feat = self.backbone(x)
        b, c, h, w = feat.shape
        embedding = feat.permute(0, 2, 3, 1).reshape(-1, c)
        patch_scores, _ = nearest_neighbors(embedding, self.memory_bank, self.num_neighbors)
        return patch_scores[:, 0].reshape(b, h, w)
