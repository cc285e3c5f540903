"""Rebuilt from https://github.com/open-mmlab/mmdetection/issues/6036
"Yolox pth conversion onnx error"

mmdet's point generator meshes the grid with `yy = y.view(-1, 1).repeat(1, len(x)).view(-1)` and
builds strides with `shift_xx.new_full((len(shift_xx),), stride_w)`; the ONNX export printed
"TracerWarning: Using len to get tensor shape might cause the trace to be incorrect". Here the
priors of one level, for a feature map whose H/W are dynamic.
"""
import torch
import torch.nn as nn


class PointGenerator(nn.Module):
    def __init__(self, stride=8):
        super().__init__()
        self.stride = stride

    def _meshgrid(self, x, y):
        xx = x.repeat(len(y))
        yy = y.view(-1, 1).repeat(1, len(x)).view(-1)
        return xx, yy

    def forward(self, feat):
        feat_h, feat_w = feat.shape[-2], feat.shape[-1]
        shift_x = torch.arange(0, feat_w) * self.stride
        shift_y = torch.arange(0, feat_h) * self.stride
        shift_xx, shift_yy = self._meshgrid(shift_x, shift_y)
        stride_w = shift_xx.new_full((len(shift_xx),), self.stride)
        priors = torch.stack([shift_xx, shift_yy, stride_w], dim=-1).float()
        return feat.flatten(2).transpose(1, 2) + priors.sum(-1, keepdim=True)


example_args = (torch.randn(1, 4, 5, 6),)
dynamic_shapes = {"feat": {2: torch.export.Dim("h", min=2, max=64), 3: torch.export.Dim("w", min=2, max=64)}}
