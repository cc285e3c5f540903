import torch


def meshgrid(x, y):
    xx = x.repeat(len(y))
    yy = y.view(-1, 1).repeat(1, len(x)).view(-1)
    return xx, yy


class AnchorGenerator:
    def __init__(self, strides, base_size=4):
        self.strides = strides
        self.base_size = base_size

    def single_level_grid_anchors(self, featmap_size, stride):
        feat_h, feat_w = featmap_size
        feat_h = int(feat_h)
        feat_w = int(feat_w)
        shift_x = torch.arange(0, feat_w) * stride
        shift_y = torch.arange(0, feat_h) * stride
        shift_xx, shift_yy = meshgrid(shift_x, shift_y)
        shifts = torch.stack([shift_xx, shift_yy, shift_xx, shift_yy], dim=-1)
        half = self.base_size * stride / 2
        return shifts + torch.tensor([-half, -half, half, half])

    def grid_anchors(self, featmap_sizes):
        return [self.single_level_grid_anchors(featmap_sizes[i], self.strides[i])
                for i in range(len(featmap_sizes))]
