import torch


def split_by_lengths(x, lengths):
    sizes = lengths.tolist()
    return torch.stack([p.mean(0) for p in torch.split(x, sizes)])
