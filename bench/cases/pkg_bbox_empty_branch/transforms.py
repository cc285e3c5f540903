import torch


def bbox2roi(bboxes):
    if bboxes.shape[0] == 0:
        return bboxes.new_zeros((0, 5))
    img_inds = bboxes.new_zeros((bboxes.shape[0], 1))
    return torch.cat([img_inds, bboxes[:, :4]], dim=-1)
