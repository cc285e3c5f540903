def expand_boxes(multi_bboxes, scores):
    num_classes = scores.size(1)
    if multi_bboxes.shape[1] > 4:
        bboxes = multi_bboxes.view(scores.size(0), -1, 4)
    else:
        bboxes = multi_bboxes[:, None].expand(scores.size(0), num_classes, 4)
    return bboxes * scores[..., None]
