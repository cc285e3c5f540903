"""zoo13 probe: more ceil_mode pooling variants (1-d on a dynamic sequence, the functional form, stride 1
and ceil_mode=False controls); export-strict / export-nonstrict, torch 2.13. One JSON line per (case, exporter)."""
import json
import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim


class Pool1d(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool1d(3, 2, ceil_mode=True)

    def forward(self, x):  # (B, C, T)
        return self.pool(x)


class Functional(nn.Module):
    def forward(self, x):
        return F.max_pool2d(x, 3, 2, ceil_mode=True)


class Stride1(nn.Module):  # control: hgnet's MaxPool2d(2, stride=1, ceil_mode=True)
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=1, ceil_mode=True)

    def forward(self, x):
        return self.pool(x)


class Floor(nn.Module):  # control
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(3, 2)

    def forward(self, x):
        return self.pool(x)


class SequentialCeil(nn.Module):  # squeezenet's form: the pool inside a Sequential
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, 2), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True))

    def forward(self, x):
        return self.features(x)


class BigKernelCeil(nn.Module):  # transformers EfficientNet/ALIGN pooler: AvgPool2d(config.hidden_dim, ceil_mode=True)
    def __init__(self):
        super().__init__()
        self.pooler = nn.AvgPool2d(1280, ceil_mode=True)

    def forward(self, x):
        return self.pooler(x)


CASES = {c.__name__: c for c in (Pool1d, Functional, Stride1, Floor, SequentialCeil, BigKernelCeil)}


def run(case, exporter):
    torch.manual_seed(0)
    m = CASES[case]().eval()
    if case == "Pool1d":
        x, alt = torch.randn(2, 4, 64), torch.randn(3, 4, 97)
        ds = ({0: Dim("batch"), 2: Dim("seq", min=64, max=1024)},)
    else:
        x, alt = torch.randn(2, 3, 64, 64), torch.randn(3, 3, 97, 97)
        ds = ({0: Dim("batch"), 2: Dim("height", min=64, max=1024), 3: Dim("width", min=64, max=1024)},)
    try:
        ep = torch.export.export(m, (x,), dynamic_shapes=ds, strict=exporter == "export-strict")
        with torch.no_grad():
            ok = torch.allclose(ep.module()(alt), m(alt), atol=1e-5)
        return ("pass" if ok else "diverged"), ""
    except Exception as e:  # noqa: BLE001
        return "fail", (type(e).__name__ + ": " + " ".join(str(e).split()))[:400]


if __name__ == "__main__":
    for c in sys.argv[1:] or list(CASES):
        for ex in ("export-strict", "export-nonstrict"):
            out, msg = run(c, ex)
            print(json.dumps({"case": c, "exporter": ex, "outcome": out, "message": msg}), flush=True)
