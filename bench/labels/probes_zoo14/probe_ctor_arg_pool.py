"""zoo14 probe: a ceil-mode pool that reaches a block through a constructor argument (timm resnet10t,
resnet.py:161-162: `downsample = downsample_avg(...)` in `make_blocks`, handed to `block_fn(inplanes, planes,
stride, downsample, ...)`, stored as `self.downsample` and called on the shortcut).

Each case with export-strict and export-nonstrict (torch 2.13), H/W declared Dim(min=64, max=1024), batch Dim,
example 2x3x64x64, checked at 3x3x96x96; one JSON line per (case, exporter).
"""
import json
import sys

import torch
from torch import nn
from torch.export import Dim


class Block(nn.Module):
    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv = nn.Conv2d(inplanes, planes, 3, stride, 1)
        self.downsample = downsample

    def forward(self, x):
        shortcut = x
        x = self.conv(x)
        if self.downsample is not None:
            shortcut = self.downsample(shortcut)
        x += shortcut
        return x


def downsample_avg(cin, cout, stride=1):  # timm's downsample_avg, reduced: the stride is a parameter
    pool = nn.Identity() if stride == 1 else nn.AvgPool2d(2, stride, ceil_mode=True, count_include_pad=False)
    return nn.Sequential(*[pool, nn.Conv2d(cin, cout, 1)])


def downsample_conv(cin, cout, stride=1):
    return nn.Sequential(*[nn.Conv2d(cin, cout, 1, stride), nn.BatchNorm2d(cout)])


def downsample_avg_s1(cin, cout, stride=1):  # a ceil-mode pool of stride 1 (control), then a strided 1x1 conv
    return nn.Sequential(*[nn.AvgPool2d(3, 1, 1, ceil_mode=True), nn.Conv2d(cin, cout, 1, stride)])


def downsample_avg_floor(cin, cout, stride=1):  # a floor-mode pool of stride 2 (control)
    return nn.Sequential(*[nn.AvgPool2d(2, stride, ceil_mode=False), nn.Conv2d(cin, cout, 1)])


def make_blocks(block_fn, factory, stride):
    downsample = factory(8, 16, stride)
    return nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), block_fn(8, 16, stride, downsample))


CASES = {
    "ctor_arg_avg_down_s2": lambda: make_blocks(Block, downsample_avg, 2),
    "ctor_arg_conv_down_s2": lambda: make_blocks(Block, downsample_conv, 2),
    "ctor_arg_ceil_pool_s1_conv_s2": lambda: make_blocks(Block, downsample_avg_s1, 2),
    "ctor_arg_floor_pool_s2": lambda: make_blocks(Block, downsample_avg_floor, 2),
}


def run(name, exporter):
    torch.manual_seed(0)
    m = CASES[name]().eval()
    x = torch.randn(2, 3, 64, 64)
    h, w = Dim("height", min=64, max=1024), Dim("width", min=64, max=1024)
    ds = {"x": {0: Dim("batch", min=1, max=64), 2: h, 3: w}}

    class Wrap(nn.Module):
        def __init__(self):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)

    rec = {"case": name, "exporter": exporter, "torch": torch.__version__}
    try:
        ep = torch.export.export(Wrap(), (x,), dynamic_shapes=ds, strict=exporter == "export-strict")
        x2 = torch.randn(3, 3, 96, 96)
        ok = torch.allclose(ep.module()(x2), Wrap()(x2), atol=1e-5)
        rec["outcome"] = "pass" if ok else "diverged"
    except Exception as e:  # noqa: BLE001
        rec["outcome"] = "fail"
        rec["message"] = (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:400]
    return rec


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print(json.dumps(run(sys.argv[1], sys.argv[2])))
    else:
        import subprocess

        for name in CASES:
            for exporter in ("export-strict", "export-nonstrict"):
                out = subprocess.run([sys.executable, __file__, name, exporter], capture_output=True, text=True)
                line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else json.dumps(
                    {"case": name, "exporter": exporter, "outcome": "crash", "message": out.stderr[-300:]})
                print(line, flush=True)
