"""A small single-stage object detector, written the way research code often is.

Lint it with ``exportlint examples/detector.py``. It runs fine in eager mode on a laptop,
but it will not export cleanly: the post-processing branches on tensor values, pulls
numbers out to Python, creates tensors on the default device and keeps its normalisation
constants outside the module state. ``exportlint --confirm examples.detector:build``
runs the real exporters on it.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class Backbone(nn.Module):
    def __init__(self, width: int = 32):
        super().__init__()
        self.stages = nn.Sequential(
            ConvBlock(3, width, stride=2),
            ConvBlock(width, width * 2, stride=2),
            ConvBlock(width * 2, width * 2, stride=2),
        )

    def forward(self, x):
        return self.stages(x)


class DetectionHead(nn.Module):
    def __init__(self, cin: int, num_classes: int):
        super().__init__()
        self.num_classes = num_classes
        self.cls = nn.Conv2d(cin, num_classes, 1)
        self.reg = nn.Conv2d(cin, 4, 1)

    def forward(self, feats):
        return self.cls(feats).sigmoid(), self.reg(feats).exp()


class Detector(nn.Module):
    def __init__(self, num_classes: int = 3, score_thresh: float = 0.5, max_dets: int = 50, stride: int = 8):
        super().__init__()
        self.backbone = Backbone()
        self.head = DetectionHead(64, num_classes)
        self.score_thresh = score_thresh
        self.max_dets = max_dets
        self.stride = stride
        # ImageNet statistics, kept as plain attributes: not moved by .to(), not in state_dict
        self.pixel_mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
        self.pixel_std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)

    def forward(self, images):
        images = (images - self.pixel_mean) / self.pixel_std
        scores, sizes = self.head(self.backbone(images))
        n, c, h, w = scores.shape

        # anchor centres of the feature grid, in pixels
        ys = torch.arange(h) * self.stride + self.stride // 2
        xs = torch.arange(w) * self.stride + self.stride // 2
        cy, cx = torch.meshgrid(ys, xs, indexing="ij")

        best, labels = scores.max(dim=1)
        if best.max() < self.score_thresh:
            # nothing detected: return a single empty box
            return torch.zeros(n, 1, 4), torch.zeros(n, 1), torch.zeros(n, 1, dtype=torch.long)

        k = min(int((best > self.score_thresh).sum()), self.max_dets)
        top, idx = best.flatten(1).topk(k, dim=1)
        cxs = cx.flatten()[idx]
        cys = cy.flatten()[idx]
        wh = sizes.flatten(2).gather(2, idx[:, None].expand(-1, 2, -1))[:, :2] * self.stride
        boxes = torch.stack([cxs - wh[:, 0] / 2, cys - wh[:, 1] / 2, cxs + wh[:, 0] / 2, cys + wh[:, 1] / 2], dim=-1)
        return boxes, top, labels.flatten(1).gather(1, idx)


def build():
    """Export target for ``exportlint --confirm examples.detector:build``."""
    torch.manual_seed(0)
    model = Detector().eval()
    example_args = (torch.rand(1, 3, 128, 128),)
    return model, example_args


if __name__ == "__main__":
    model, args = build()
    boxes, scores, labels = model(*args)
    print(boxes.shape, scores.shape, labels.shape)
