import torch


def segment_means(feats, segment_ids):
    ids = torch.unique(segment_ids).tolist()
    pooled = [feats[segment_ids == i].mean(dim=0) for i in ids]
    return torch.stack(pooled)
