"""cases20: slicing / narrowing a resampled map back to the size of a tensor of the dynamic dim
(the UNet / Demucs 'trim to the skip connection' step), torch.export strict and non-strict, torch
2.13. Output: probe_crop.out"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

warnings.simplefilter("ignore")


class Crop(nn.Module):
    def __init__(self, path, how="slice"):
        super().__init__()
        self.path, self.how = path, how
        self.down = nn.Conv2d(4, 4, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.ConvTranspose2d(4, 4, 2, stride=2)
        self.same = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        p = self.path
        if p == "up(down(x))":
            y = self.up(self.down(x))
        elif p == "up(pool(x))":
            y = self.up(self.pool(x))
        elif p == "interp(down(x), x2)":
            y = F.interpolate(self.down(x), scale_factor=2.0)
        elif p == "down(x)":
            y = self.down(x)
        elif p == "up(x)":
            y = self.up(x)
        elif p == "same(x)":
            y = self.same(x)
        elif p == "pad(x)":
            y = F.pad(x, (0, 0, 1, 1))
        if self.how == "slice":
            y = y[:, :, :x.size(2)]
        else:
            y = y.narrow(2, 0, x.size(2))
        return y.mean((2, 3), keepdim=True) + x


x = torch.randn(1, 4, 9, 6)
specs = {"Dim(h, 5..64)": {"x": {2: Dim("h", min=5, max=64)}},
         "2*_h": {"x": {2: 2 * Dim("_h", min=3, max=32)}}}
for path in ["up(down(x))", "up(pool(x))", "interp(down(x), x2)", "down(x)", "up(x)", "same(x)", "pad(x)"]:
    for how in ("slice", "narrow"):
        for sname, ds in specs.items():
            if sname == "2*_h" and how == "narrow":
                continue
            xx = torch.randn(1, 4, 10, 6) if sname == "2*_h" else x
            res = []
            for strict in (True, False):
                try:
                    m = Crop(path, how)
                    torch.export.export(m, (xx,), dynamic_shapes=ds, strict=strict)
                    res.append("pass")
                except Exception as e:
                    msg = str(e).splitlines()
                    res.append(f"FAIL {type(e).__name__}: {msg[0][:60]} {msg[1][:150] if len(msg) > 1 else ''}")
            print(f"{path:22s} {how:6s} {sname:14s} strict: {res[0]}\n{'':44s} nonstrict: {res[1]}", flush=True)
