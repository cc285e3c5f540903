"""engine21 probe: two paths that downsample one tensor with different conv/pool size arithmetic meet
at an add or a channel cat (EXL151). strict and non-strict torch.export (torch 2.13), H/W
Dim(min=64, max=1024), batch Dim, example 2x3x64x64, checked at 3x3x97x97. One JSON line per
(case, exporter).

Cases:
- pool_conv_add: out = conv(k3 s2 p1)(x) + MaxPool2d(2, 2)(x)        ((H-1)//2+1 vs H//2)
- pool_conv_cat: torch.cat([conv(k3 s2 p1)(x), AvgPool2d(2)(x)], 1)  (the same at a channel cat)
- pool_conv_k2_control: conv k2 s2 p0 (H//2, the pool's formula) + MaxPool2d(2, 2): control
- bottleneck_handed: a tree hands (x, MaxPool2d(2,2)(x) -> conv1x1) to a block 1x1 -> k3 s2 p1 -> 1x1 (timm
  DlaBottleneck's shape) that adds the shortcut
- pool3_conv_add: conv k3 s2 p1 + MaxPool2d(3, 2, 1) ((H-1)//2+1 both): control
"""
import json
import sys

import torch
from torch import nn
from torch.export import Dim


class PoolConvAdd(nn.Module):
    def __init__(self, k=3, p=1, pk=2, ps=2, pp=0, cat=False, avg=False):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, k, 2, p)
        self.pool = nn.AvgPool2d(pk) if avg else nn.MaxPool2d(pk, ps, pp)
        self.cat = cat

    def forward(self, x):
        if self.cat:
            return torch.cat([self.conv(x), self.pool(x)], 1)
        return self.conv(x) + self.pool(x)


class Bottleneck(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, 4, 1)
        self.conv2 = nn.Conv2d(4, 4, 3, stride, 1)
        self.conv3 = nn.Conv2d(4, cout, 1)

    def forward(self, x, shortcut):
        out = self.conv3(self.conv2(self.conv1(x)))
        out += shortcut
        return out


class Tree(nn.Module):
    def __init__(self, block, cin=3, cout=8, stride=2):
        super().__init__()
        self.downsample = nn.MaxPool2d(stride, stride=stride)
        self.project = nn.Conv2d(cin, cout, 1)
        self.tree1 = block(cin, cout, stride)

    def forward(self, x):
        return self.tree1(x, self.project(self.downsample(x)))


CASES = {
    "pool_conv_add": lambda: PoolConvAdd(),
    "pool_conv_cat": lambda: PoolConvAdd(cat=True, avg=True),
    "pool_conv_k2_control": lambda: PoolConvAdd(k=2, p=0),
    "bottleneck_handed": lambda: Tree(Bottleneck),
    "pool3_conv_add": lambda: PoolConvAdd(pk=3, ps=2, pp=1),
}


def run(case, exporter):
    torch.manual_seed(0)
    m = CASES[case]().eval()
    x, alt = torch.randn(2, 3, 64, 64), torch.randn(3, 3, 97, 97)
    ds = ({0: Dim("batch"), 2: Dim("height", min=64, max=1024), 3: Dim("width", min=64, max=1024)},)
    try:
        ep = torch.export.export(m, (x,), dynamic_shapes=ds, strict=exporter == "export-strict")
        with torch.no_grad():
            ok = torch.allclose(ep.module()(alt), m(alt), atol=1e-5)
        return ("pass" if ok else "diverged"), ""
    except Exception as e:  # noqa: BLE001
        return "fail", (type(e).__name__ + ": " + " ".join(str(e).split()))[:500]


if __name__ == "__main__":
    for c in sys.argv[1:] or list(CASES):
        for ex in ("export-strict", "export-nonstrict"):
            out, msg = run(c, ex)
            print(json.dumps({"case": c, "exporter": ex, "outcome": out, "message": msg}), flush=True)
