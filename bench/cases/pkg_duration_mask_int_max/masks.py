import torch


def sequence_mask(lengths, max_length=None):
    if max_length is None:
        max_length = int(lengths.max())
    ids = torch.arange(max_length, dtype=lengths.dtype, device=lengths.device)
    return ids.unsqueeze(0) < lengths.unsqueeze(1)
