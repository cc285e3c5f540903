def box_area_scores(boxes, scores):
    assert boxes.shape[-1] == 4
    area = (boxes[:, 2] - boxes[:, 0]).clamp(min=0) * (boxes[:, 3] - boxes[:, 1]).clamp(min=0)
    return scores * area.sqrt()
