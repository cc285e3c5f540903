import torch


def nearest_neighbors(embedding, memory_bank, n_neighbors):
    distances = torch.cdist(embedding, memory_bank, p=2.0)
    patch_scores, locations = distances.topk(k=n_neighbors, largest=False, dim=1)
    return patch_scores, locations
