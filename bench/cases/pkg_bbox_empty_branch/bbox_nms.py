from .transforms import bbox2roi


def multiclass_nms(multi_bboxes, multi_scores, score_thr):
    num_classes = multi_scores.size(1)
    if multi_bboxes.shape[1] > 4:
        bboxes = multi_bboxes.view(multi_scores.size(0), -1, 4)
    else:
        bboxes = multi_bboxes[:, None].expand(multi_scores.size(0), num_classes, 4)
    valid_mask = multi_scores > score_thr
    bboxes = bboxes[valid_mask]
    return bbox2roi(bboxes)
