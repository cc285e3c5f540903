import torch


@torch.library.custom_op("exlcase8g::rms_scale", mutates_args=())
def rms_scale(x: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
