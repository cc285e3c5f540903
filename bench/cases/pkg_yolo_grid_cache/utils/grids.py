import torch


def create_grids(layer, ng=(13, 13), device="cpu"):
    layer.nx, layer.ny = ng
    layer.ng = torch.tensor(ng, dtype=torch.float)
    yv, xv = torch.meshgrid([torch.arange(layer.ny, device=device), torch.arange(layer.nx, device=device)], indexing="ij")
    layer.grid = torch.stack((xv, yv), 2).view((1, 1, layer.ny, layer.nx, 2)).float()
