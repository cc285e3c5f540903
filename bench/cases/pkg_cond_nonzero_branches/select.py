import torch


def _above(scores):
    return torch.nonzero(scores > 0.5)[:, 0]


def _below(scores):
    return torch.nonzero(scores <= 0.5)[:, 0]


def kept_indices(scores):
    return torch.cond(scores.mean() > 0, _above, _below, (scores,))
