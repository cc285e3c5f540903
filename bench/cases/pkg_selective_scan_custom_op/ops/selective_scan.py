import torch


@torch.library.custom_op("exlcase10c::selective_scan_fwd", mutates_args=())
def selective_scan_fwd(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor) -> torch.Tensor:
    h = torch.zeros(u.shape[0], u.shape[2], dtype=u.dtype)
    ys = []
    for t in range(u.shape[1]):
        h = torch.exp(delta[:, t] * A) * h + delta[:, t] * u[:, t]
        ys.append(h)
    return torch.stack(ys, 1)


@selective_scan_fwd.register_fake
def _(u, delta, A):
    return torch.empty_like(u)
