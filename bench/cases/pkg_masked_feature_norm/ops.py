import torch


def normalize_rows(feats):
    norm = torch.linalg.vector_norm(feats)
    return feats / norm.clamp_min(1e-6)
