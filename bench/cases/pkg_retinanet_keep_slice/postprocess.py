import torch


def select_detections(boxes, scores, score_thresh, detections_per_img):
    keep = torch.nonzero(scores > score_thresh).squeeze(1)
    keep = keep[torch.argsort(scores[keep], descending=True)]
    keep = keep[: detections_per_img]
    return boxes[keep], scores[keep]
