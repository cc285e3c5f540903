import torch


def sort_scores(scores, keep):
    values, order = torch.sort(scores, dim=-1, descending=True)
    return values[..., :keep], order[..., :keep]
