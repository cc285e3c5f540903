import torch


@torch.library.custom_op("exlcase10b::keep_rows", mutates_args=())
def keep_rows(x: torch.Tensor, thr: float) -> torch.Tensor:
    return x[x.amax(-1) > thr]
