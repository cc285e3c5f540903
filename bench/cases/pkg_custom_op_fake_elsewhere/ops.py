import torch


@torch.library.custom_op("exlcase8::clipped_gelu_f", mutates_args=())
def clipped_gelu(x: torch.Tensor, limit: float) -> torch.Tensor:
    return torch.nn.functional.gelu(x).clamp(max=limit)
