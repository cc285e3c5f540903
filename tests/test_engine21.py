"""engine21: EXL151 (two downsampling size formulas meeting at an add or cat).

EXL151 is measured in bench/labels/probes_engine21/probe_downsample_meet.py (and zoo18's
probe_handed_shortcut.py): a conv k3 s2 p1 path added to (or cat with) a MaxPool2d(2, 2) / AvgPool2d(2)
path of the same input fails strict and non-strict torch.export with H/W dynamic ("Constraints violated
(height, width) ... (1 + (((-1) + L['x'].size()[3]) // 2)) == (L['x'].size()[3] // 2)"); a conv k2 s2
path, or a MaxPool2d(3, 2, 1), has the pool's own formula and exports. Each reproducer has a control.
"""

from __future__ import annotations

from conftest import code_hits, lint_package, write_package

_HW = '{0: torch.export.Dim("b"), 2: torch.export.Dim("h", min=64, max=1024), 3: torch.export.Dim("w", min=64, max=1024)}'
_B = '{0: torch.export.Dim("b", min=1, max=64)}'
STRICT = ("export-strict", "export-nonstrict")


def _init(cls: str, mod: str, dims: str) -> str:
    return (f"import torch\n\nfrom .{mod} import {cls}\n\nmodel = {cls}()\n"
            f"example_args = (torch.randn(2, 8, 64, 64),)\ndynamic_shapes = ({dims},)\n")


def _run(tmp_path, files: dict, prefix: str) -> list:
    return lint_package(write_package(tmp_path, files, prefix))


_SAME = """import torch
from torch import nn


class Down(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, {conv})
        self.pool = {pool}

    def forward(self, x):
        out = self.conv(x)
        out += self.pool(x)
        return torch.cat([self.conv(x), self.pool(x)], 1)
"""


def test_pool_and_strided_conv_meet_declared_dynamic_is_an_error(tmp_path):
    net = _SAME.format(conv="3, stride=2, padding=1", pool="nn.MaxPool2d(2, 2)")
    f = _run(tmp_path, {"__init__.py": _init("Down", "net", _HW), "net.py": net}, "e21a")
    assert code_hits(f, "EXL151") == [("net.py", 13, "error", STRICT), ("net.py", 14, "error", STRICT)]


def test_same_formula_control(tmp_path):
    # conv k2 s2 (H // 2) with MaxPool2d(2, 2); conv k3 s2 p1 with MaxPool2d(3, 2, 1): measured to export
    for i, (conv, pool) in enumerate((("2, 2", "nn.MaxPool2d(2, 2)"), ("3, 2, 1", "nn.MaxPool2d(3, 2, 1)"))):
        net = _SAME.format(conv=conv, pool=pool)
        f = _run(tmp_path / str(i), {"__init__.py": _init("Down", "net", _HW), "net.py": net}, "e21b")
        assert code_hits(f, "EXL151") == []


def test_only_batch_declared_control(tmp_path):
    net = _SAME.format(conv="3, stride=2, padding=1", pool="nn.MaxPool2d(2, 2)")
    f = _run(tmp_path, {"__init__.py": _init("Down", "net", _B), "net.py": net}, "e21c")
    assert code_hits(f, "EXL151") == []


def test_unknown_dims_is_a_warning_and_ceil_mode_is_left_to_exl131(tmp_path):
    net = _SAME.format(conv="3, stride=2, padding=1", pool="nn.AvgPool2d(2)")
    f = _run(tmp_path / "a", {"net.py": net}, "e21d")
    assert [h[2] for h in code_hits(f, "EXL151")] == ["warning", "warning"]
    net = _SAME.format(conv="3, stride=2, padding=1", pool="nn.AvgPool2d(2, ceil_mode=True)")
    f = _run(tmp_path / "b", {"net.py": net}, "e21d")
    assert code_hits(f, "EXL151") == []


_TREE = """import torch
from torch import nn


class Basic(nn.Module):
    def __init__(self, cin, cout, stride=1, dilation=1, **_):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, {k}, stride=stride, padding={p}, dilation=dilation)
        self.bn1 = nn.BatchNorm2d(cout)

    def forward(self, x, shortcut=None):
        if shortcut is None:
            shortcut = x
        out = self.bn1(self.conv1(x))
        out += shortcut
        return out


class Tree(nn.Module):
    def __init__(self, block, cin, cout, stride=1, dilation=1):
        super().__init__()
        self.downsample = nn.MaxPool2d(stride, stride=stride) if stride > 1 else nn.Identity()
        self.project = nn.Identity()
        if cin != cout:
            self.project = nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))
        cargs = dict(dilation=dilation)
        self.tree1 = block(cin, cout, stride, **cargs)

    def forward(self, x):
        shortcut = self.project(self.downsample(x))
        return self.tree1(x, shortcut)


class Net(nn.Module):
    def __init__(self, block=Basic):
        super().__init__()
        self.level = Tree(block, 8, 16, stride=2)

    def forward(self, x):
        return self.level(x)
"""


def test_handed_block_adds_a_pooled_shortcut(tmp_path):
    # timm dla's DlaTree / DlaBasic shape (dla.py:77, zoo truth: strict and non-strict fail)
    net = _TREE.format(k=3, p="dilation")
    f = _run(tmp_path, {"__init__.py": _init("Net", "net", _HW), "net.py": net}, "e21e")
    assert [h[:2] for h in code_hits(f, "EXL151")] == [("net.py", 15)]


def test_handed_block_with_the_pool_formula_control(tmp_path):
    # conv k2 s=stride p0: (H - 2) // s + 1 == H // s for s = 2 (and the tree's stride 1 has no pool)
    net = _TREE.format(k=2, p=0)
    f = _run(tmp_path, {"__init__.py": _init("Net", "net", _HW), "net.py": net}, "e21f")
    assert code_hits(f, "EXL151") == []

