"""Rebuilt from https://github.com/pytorch/pytorch/issues/29980
"ONNX export failed: Couldn't export operator aten::upsample_bilinear2d"

"UserWarning: ONNX export failed on upsample_bilinear2d because align_corners == True not
supported", fixed by "adding torch.onnx.export(.., opset_version=11)". Here a segmentation
decoder upsampling with `align_corners=True`, exported at the opset of the report (9).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DecoderHead(nn.Module):
    def __init__(self, in_ch=8, n_classes=3, scale=2):
        super().__init__()
        self.scale = scale
        self.classifier = nn.Conv2d(in_ch, n_classes, 1)

    def forward(self, feats):
        logits = self.classifier(feats)
        return F.interpolate(logits, scale_factor=self.scale, mode="bilinear", align_corners=True)


example_args = (torch.randn(1, 8, 8, 8),)
opset_version = 9
