import torch


@torch.library.custom_op("exlcase8g::gated", mutates_args=())
def gated(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(g)
