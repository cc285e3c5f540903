import torch


def causal_mask(x):
    seq_len = x.shape[1]
    ones = torch.ones(seq_len, seq_len, dtype=torch.bool, device=x.device)
    return torch.tril(ones)
