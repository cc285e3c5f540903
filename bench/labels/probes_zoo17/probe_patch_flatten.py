"""zoo17: does `conv(x).flatten(2).transpose(1, 2)` (a strided patch embedding) with dynamic H/W fail
torch.export? (timm twins.py:316 fails non-strict only, 'Constraints violated (width)'.)"""
import sys
import torch
from torch.export import Dim

class Embed(torch.nn.Module):
    def __init__(self, c=64, k=4, norm=True, variant="flatten"):
        super().__init__()
        self.proj = torch.nn.Conv2d(3, c, k, stride=k)
        self.norm = torch.nn.LayerNorm(c) if norm else torch.nn.Identity()
        self.variant = variant
    def forward(self, x):
        B, C, H, W = x.shape
        if self.variant == "flatten":
            x = self.proj(x).flatten(2).transpose(1, 2)
        elif self.variant == "permute":
            x = self.proj(x).permute(0, 2, 3, 1).reshape(B, -1, self.proj.out_channels)
        x = self.norm(x)
        return x, (H // 4, W // 4)

def run(strict, **kw):
    m = Embed(**kw).eval()
    x = torch.randn(2, 3, 64, 96)
    h, w = Dim("height", min=64, max=1024), Dim("width", min=64, max=1024)
    try:
        ep = torch.export.export(m, (x,), dynamic_shapes=({0: Dim("batch"), 2: h, 3: w},), strict=strict)
        y = ep.module()(torch.randn(3, 3, 128, 64))
        return "pass"
    except Exception as e:
        return "FAIL " + type(e).__name__ + ": " + str(e).replace("\n", " ")[:300]

for kw in (dict(), dict(norm=False), dict(c=32), dict(variant="permute")):
    for strict in (False, True):
        print(kw, "strict" if strict else "non-strict", run(strict, **kw), flush=True)
