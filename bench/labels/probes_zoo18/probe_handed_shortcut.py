"""zoo18 probe: dla34's miss (timm dla.py:77, `out += shortcut`): a tree hands a block the input and a
shortcut pooled by MaxPool2d(2, 2) (floor: H // 2); the block's strided conv path gives another size
formula. strict and non-strict torch.export (torch 2.13), H/W Dim(min=64, max=1024), batch Dim,
example 2x3x64x64, checked at 3x3x97x97. One JSON line per (case, exporter).

Cases (the block class handed to the tree's constructor, as timm's DlaTree(block=...)):
- conv_k3s2p1: conv k3 s2 p1 -> (H - 1)//2 + 1 (ceil H/2) vs floor H/2: sizes differ at odd H
- conv_k2s2p0 (control): conv k2 s2 p0 -> (H - 2)//2 + 1 = H//2, the pool's own formula
- conv_k1s2p0: conv k1 s2 -> (H - 1)//2 + 1 (ceil), like k3 s2 p1
"""
import json
import sys

import torch
from torch import nn
from torch.export import Dim


def make_block(k, p):
    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, k, stride, p)

        def forward(self, x, shortcut):
            out = self.conv(x)
            out += shortcut
            return out
    return Block


class Tree(nn.Module):
    def __init__(self, block, cin, cout, stride=2):
        super().__init__()
        self.downsample = nn.MaxPool2d(stride, stride=stride)
        self.project = nn.Conv2d(cin, cout, 1)
        self.tree1 = block(cin, cout, stride)

    def forward(self, x):
        shortcut = self.project(self.downsample(x))
        return self.tree1(x, shortcut)


CASES = {"conv_k3s2p1": (3, 1), "conv_k2s2p0": (2, 0), "conv_k1s2p0": (1, 0)}


def run(case, exporter):
    torch.manual_seed(0)
    m = Tree(make_block(*CASES[case]), 3, 8).eval()
    x, alt = torch.randn(2, 3, 64, 64), torch.randn(3, 3, 98, 98)
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
