import torch


def expand_by_durations(features, durations):
    return torch.repeat_interleave(features, durations, dim=0)
