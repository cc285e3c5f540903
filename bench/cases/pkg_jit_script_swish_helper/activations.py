import torch


@torch.jit.script
def swish(x):
    return x * torch.sigmoid(x)
