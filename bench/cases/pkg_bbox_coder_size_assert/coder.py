import torch


def decode(bboxes, pred_bboxes, max_shape=None):
    assert pred_bboxes.size(0) == bboxes.size(0)
    assert pred_bboxes.size(-1) == bboxes.size(-1)
    px = (bboxes[..., 0] + bboxes[..., 2]) * 0.5
    py = (bboxes[..., 1] + bboxes[..., 3]) * 0.5
    pw = bboxes[..., 2] - bboxes[..., 0]
    ph = bboxes[..., 3] - bboxes[..., 1]
    dx, dy, dw, dh = pred_bboxes.unbind(-1)
    gx = px + pw * dx
    gy = py + ph * dy
    gw = pw * dw.clamp(-4.0, 4.0).exp()
    gh = ph * dh.clamp(-4.0, 4.0).exp()
    return torch.stack([gx - gw * 0.5, gy - gh * 0.5, gx + gw * 0.5, gy + gh * 0.5], dim=-1)
