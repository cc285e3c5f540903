import torch


def filter_scores_and_topk(scores, score_thr, topk):
    valid_mask = scores > score_thr
    scores = scores[valid_mask]
    valid_idxs = torch.nonzero(valid_mask)
    num_topk = min(topk, valid_idxs.size(0))
    scores, idxs = scores.sort(descending=True)
    scores = scores[:num_topk]
    keep_idxs, labels = valid_idxs[idxs[:num_topk]].unbind(dim=1)
    return scores, labels, keep_idxs
