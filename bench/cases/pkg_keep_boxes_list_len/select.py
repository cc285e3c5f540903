import torch


def keep_per_image(max_conf, conf_thresh):
    kept = []
    for conf in max_conf:
        kept.append(torch.nonzero(conf >= conf_thresh).flatten())
    return kept
