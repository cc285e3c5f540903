import torch.nn as nn

from .rpn_head import get_bboxes_single


class RPNHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.rpn_cls = nn.Conv2d(8, 1, 1)
        self.rpn_reg = nn.Conv2d(8, 4, 1)
        self.nms_pre = 50

    def forward(self, img):
        feat = self.conv(img).relu()
        cls_scores = [self.rpn_cls(feat)[0]]
        bbox_preds = [self.rpn_reg(feat)[0]]
        return get_bboxes_single(cls_scores, bbox_preds, self.nms_pre)
