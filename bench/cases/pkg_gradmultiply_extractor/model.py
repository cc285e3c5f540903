import torch.nn as nn

from .grad_multiply import GradMultiply


class ConvFeatureExtractor(nn.Module):
    def __init__(self, conv_layers=((16, 10, 5), (16, 3, 2), (16, 2, 2))):
        super().__init__()
        blocks = []
        in_d = 1
        for dim, k, stride in conv_layers:
            blocks.append(nn.Sequential(nn.Conv1d(in_d, dim, k, stride=stride, bias=False), nn.GELU()))
            in_d = dim
        self.conv_layers = nn.ModuleList(blocks)

    def forward(self, x):
        x = x.unsqueeze(1)
        for conv in self.conv_layers:
            x = conv(x)
        return x


class DistillerFrontEnd(nn.Module):
    def __init__(self, embed_dim=16, feature_grad_mult=0.1):
        super().__init__()
        self.feature_extractor = ConvFeatureExtractor()
        self.feature_grad_mult = feature_grad_mult
        self.layer_norm = nn.LayerNorm(16)
        self.post_extract_proj = nn.Linear(16, embed_dim)

    def forward(self, wave):
        feat = self.feature_extractor(wave)
        if self.feature_grad_mult != 1.0:
            feat = GradMultiply.apply(feat, self.feature_grad_mult)
        feat = feat.transpose(1, 2)
        feat = self.layer_norm(feat)
        return self.post_extract_proj(feat)
