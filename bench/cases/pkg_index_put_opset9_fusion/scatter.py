import torch


def scatter_to_canvas(x, tensor_index, size):
    out_1 = torch.zeros(1, x.shape[1], size, size, dtype=x.dtype, device=x.device)
    out_1[:, :, tensor_index[:, 0], tensor_index[:, 1]] = x[0, :, 0, :]
    return out_1
