import torch


def scaled_positions(x, config):
    steps = torch.arange(x.shape[1], device=x.device, dtype=x.dtype)
    return x * config.scale + steps[None, :, None] * config.step
