import torch


def lift_to_camera(intrins, points):
    inv = torch.inverse(intrins)
    return points @ inv.transpose(1, 2)
