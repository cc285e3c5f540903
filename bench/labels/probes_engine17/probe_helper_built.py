"""engine17 probe (torch 2.13): a block built by a helper of another file, and a block class handed
to a builder of another file. Each (case, exporter) runs in its own subprocess; one JSON line each.

- helper_view_split: ``Net.stage = make_stage(16, 2)`` (builders.py: ``layers.append(ShiftBlock(c));
  return nn.Sequential(*layers)``), ShiftBlock.forward does ``x.view(nt // 4, 4, c, h, w)`` on dim 0,
  declared ``Dim("NT", min=4, max=64)`` (tests/test_engine17_helper_modules.py's REACH case).
- helper_view_keep: control, the block views ``x.view(nt, c, h * w)`` (keeps the dim).
- class_arg_ceil_pool: a block class handed as ``block=`` to another file's builder whose
  ``make_blocks`` passes a ceil-mode AvgPool2d(2, 2) shortcut (tests/test_engine17_class_args.py);
  H/W ``Dim(min=64, max=1024)``.
- class_arg_conv: control, the builder passes a strided 1x1 conv shortcut.

Run: python bench/labels/probes_engine17/probe_helper_built.py > probe_helper_built.jsonl
"""
import json
import subprocess
import sys

CASES = ("helper_view_split", "helper_view_keep", "class_arg_ceil_pool", "class_arg_conv")
EXPORTERS = ("export-strict", "export-nonstrict")

CHILD = r'''
import sys, json, traceback
import torch
from torch import nn

case, exporter = sys.argv[1], sys.argv[2]


class ShiftBlock(nn.Module):
    def __init__(self, c, split):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.split = split

    def forward(self, x):
        nt, c, h, w = x.size()
        if self.split:
            y = x.view(nt // 4, 4, c, h, w)
            y = torch.roll(y, 1, dims=1)
            return self.conv(y.view(nt, c, h, w))
        y = x.view(nt, c, h * w)
        return self.conv(y.view(nt, c, h, w))


def make_stage(c, n, split):
    layers = []
    for _ in range(n):
        layers.append(ShiftBlock(c, split))
    return nn.Sequential(*layers)


class Net(nn.Module):
    def __init__(self, split):
        super().__init__()
        self.stem = nn.Conv2d(16, 16, 1)
        self.stage = make_stage(16, 2, split)

    def forward(self, x):
        return self.stage(self.stem(x))


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
        return x + shortcut


def make_blocks(block_fn, avg):
    if avg:
        down = nn.Sequential(nn.AvgPool2d(2, 2, ceil_mode=True, count_include_pad=False), nn.Conv2d(8, 16, 1))
    else:
        down = nn.Sequential(nn.Conv2d(8, 16, 1, stride=2))
    return nn.Sequential(block_fn(8, 16, 2, down))


class ResNetLike(nn.Module):
    def __init__(self, block, avg):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 1, 1)
        self.stages = make_blocks(block, avg)

    def forward(self, x):
        return self.stages(self.stem(x))


from torch.export import Dim
if case.startswith("helper"):
    m = Net(case == "helper_view_split").eval()
    args = (torch.randn(8, 16, 8, 8),)
    ds = ({0: Dim("NT", min=4, max=64)},)
else:
    m = ResNetLike(Block, case == "class_arg_ceil_pool").eval()
    args = (torch.randn(2, 3, 64, 64),)
    ds = ({2: Dim("h", min=64, max=1024), 3: Dim("w", min=64, max=1024)},)
try:
    torch.export.export(m, args, dynamic_shapes=ds, strict=(exporter == "export-strict"))
    print(json.dumps({"case": case, "exporter": exporter, "outcome": "pass"}))
except Exception as e:
    print(json.dumps({"case": case, "exporter": exporter, "outcome": "fail",
                      "message": (type(e).__name__ + ": " + str(e)).splitlines()[0][:300]}))
'''

if __name__ == "__main__":
    import torch
    for case in CASES:
        for ex in EXPORTERS:
            p = subprocess.run([sys.executable, "-c", CHILD, case, ex], capture_output=True, text=True, timeout=600)
            line = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else json.dumps(
                {"case": case, "exporter": ex, "outcome": "crash", "message": p.stderr.strip()[-300:]})
            rec = json.loads(line)
            rec["torch"] = torch.__version__
            print(json.dumps(rec), flush=True)
