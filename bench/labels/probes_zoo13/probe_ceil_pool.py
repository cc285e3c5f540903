"""zoo13 probe: ceil_mode pooling on a dynamic H/W (timm resnet10t's avg_down shortcut, resnet.py:162).

Each case with export-strict and export-nonstrict (torch 2.13), H/W declared Dim(min=64, max=1024) and batch
Dim, example 2x3x64x64, checked at 3x3x96x96; one JSON line per (case, exporter).
"""
import json
import sys

import torch
from torch import nn
from torch.export import Dim


class PoolInput(nn.Module):  # ceil-mode pool straight on the input
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool2d(2, 2, ceil_mode=True, count_include_pad=False)

    def forward(self, x):
        return self.pool(x)


class PoolAfterConv(nn.Module):  # ceil-mode pool on a strided conv's output
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.pool = nn.AvgPool2d(2, 2, ceil_mode=True, count_include_pad=False)

    def forward(self, x):
        return self.pool(self.stem(x))


class ResidualAvgDown(nn.Module):  # resnet-d block: conv stride 2 path + avg_down(ceil) shortcut, added
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.conv = nn.Conv2d(8, 16, 3, 2, 1)
        self.down = nn.Sequential(nn.AvgPool2d(2, 2, ceil_mode=True, count_include_pad=False), nn.Conv2d(8, 16, 1))

    def forward(self, x):
        x = self.stem(x)
        shortcut = self.down(x)
        x = self.conv(x)
        x += shortcut
        return x


class ResidualAvgDownFloor(nn.Module):  # control: same with ceil_mode=False
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2, 1)
        self.conv = nn.Conv2d(8, 16, 3, 2, 1)
        self.down = nn.Sequential(nn.AvgPool2d(2, 2, ceil_mode=False), nn.Conv2d(8, 16, 1))

    def forward(self, x):
        x = self.stem(x)
        shortcut = self.down(x)
        x = self.conv(x)
        x += shortcut
        return x


class MaxPoolCeil(nn.Module):  # squeezenet-style MaxPool2d(3, 2, ceil_mode=True) after a strided conv
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2)
        self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)

    def forward(self, x):
        return self.pool(self.stem(x))


class MaxPoolCeilFlatten(nn.Module):  # ceil pool, then a reshape that ties the size
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 2)
        self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)

    def forward(self, x):
        y = self.pool(self.stem(x))
        return y.flatten(2).transpose(1, 2) * 2


CASES = {c.__name__: c for c in (PoolInput, PoolAfterConv, ResidualAvgDown, ResidualAvgDownFloor, MaxPoolCeil,
                                  MaxPoolCeilFlatten)}


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
        return "fail", (type(e).__name__ + ": " + " ".join(str(e).split()))[:600]


if __name__ == "__main__":
    for c in sys.argv[1:] or list(CASES):
        for ex in ("export-strict", "export-nonstrict"):
            out, msg = run(c, ex)
            print(json.dumps({"case": c, "exporter": ex, "outcome": out, "message": msg}), flush=True)
