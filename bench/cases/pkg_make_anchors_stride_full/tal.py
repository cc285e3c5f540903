import torch


def make_anchors(feats, strides, grid_cell_offset=0.5):
    anchor_points, stride_tensor = [], []
    dtype = feats[0].dtype
    for i, stride in enumerate(strides):
        h, w = feats[i].shape[2:]
        sx = torch.arange(w, dtype=dtype) + grid_cell_offset
        sy = torch.arange(h, dtype=dtype) + grid_cell_offset
        sy, sx = torch.meshgrid(sy, sx, indexing="ij")
        anchor_points.append(torch.stack((sx, sy), -1).view(-1, 2))
        stride_tensor.append(torch.full((h * w, 1), stride, dtype=dtype))
    return torch.cat(anchor_points), torch.cat(stride_tensor)
