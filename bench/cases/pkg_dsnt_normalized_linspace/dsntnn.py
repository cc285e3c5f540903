import torch


def normalized_linspace(length, dtype=None, device=None):
    first = -(length - 1) / length
    last = (length - 1) / length
    return torch.linspace(first, last, length, dtype=dtype, device=device)


def soft_argmax(heatmaps):
    *_, height, width = heatmaps.size()
    probs = heatmaps.flatten(-2).softmax(-1).view_as(heatmaps)
    xs = normalized_linspace(width, dtype=heatmaps.dtype, device=heatmaps.device)
    ys = normalized_linspace(height, dtype=heatmaps.dtype, device=heatmaps.device)
    x = (probs.sum(-2) * xs).sum(-1)
    y = (probs.sum(-1) * ys).sum(-1)
    return torch.stack([x, y], -1)
