def filter_boxes(bbs, conf, thresh):
    idx = (conf > thresh).unsqueeze(-1).expand_as(bbs)
    filtered = bbs.masked_select(idx)
    return filtered.view(-1, 4)
