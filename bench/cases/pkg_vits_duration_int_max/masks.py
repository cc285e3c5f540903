import torch


def sequence_mask(lengths, max_len=None):
    if max_len is None:
        max_len = int(lengths.max())
    seq_range = torch.arange(max_len, dtype=lengths.dtype, device=lengths.device)
    return seq_range.unsqueeze(0) < lengths.unsqueeze(1)
