import torch


def select_top_score_boxes(boxes, logits, score_thresh=0.5, topk=4):
    scores = logits.sigmoid().max(-1).values
    keep = scores > score_thresh
    if keep.sum() == 0:
        return boxes[:0], scores[:0]
    return boxes[keep], scores[keep]
