"""engine18: declared dynamic dims carried from an export entry into what it calls (issue #9).

The project's export (here ExportDB-style module declarations, ``dynamic_shapes`` with a model
instance) declares dims of the model's ``forward`` inputs dynamic. ``semantics.dim_flow`` carries
them (a) into the blocks the model builds (``self.up = Up(...)``, ``nn.ModuleList`` items), (b)
into helper functions' parameters (tensors, and sizes handed as ``x.shape[2]``) and (c) into
methods inherited from base classes in other files; through layers that keep the dim indices
(``nn.Conv2d``...) and what project modules return. Each rule: a reproducer (an error, as the
real exporters fail: bench/cases/pkg_upsample_shape_mismatch, pkg_window_pad_branch,
pkg_frames_loop_normalize, pkg_vit_patch_assert_base, pkg_bisenet_int_shape_list,
pkg_int_size_subpixel_opset10, point_generator_len) and a control where the dim reaching the
code is not declared dynamic (the finding stays a warning, or is not made).
"""

from __future__ import annotations

from conftest import code_hits, lint_package, write_package

_HW = '{2: torch.export.Dim("h", min=8, max=128), 3: torch.export.Dim("w", min=8, max=128)}'
_B = '{0: torch.export.Dim("b", min=1, max=64)}'

STRICT = ("export-strict", "export-nonstrict")
ALL = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def _init(cls: str, mod: str, dims: str, args: str = "torch.randn(1, 4, 16, 16)") -> str:
    return (f"import torch\n\nfrom .{mod} import {cls}\n\nmodel = {cls}()\n"
            f"example_args = ({args},)\ndynamic_shapes = ({dims},)\n")


def _run(tmp_path, files: dict, prefix: str) -> list:
    return lint_package(write_package(tmp_path, files, prefix))


# ---- (a) a block the model builds in __init__ gets the declared tensor -------------------------

_UP = """import torch
import torch.nn as nn
import torch.nn.functional as F


class Up(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.up = nn.ConvTranspose2d(c, c, 4, stride=2, padding=1)

    def forward(self, x, skip):
        x = self.up(x)
        if x.shape != skip.shape:
            x = F.interpolate(x, size=skip.shape[-2:])
        return x + skip
"""

_NET = """import torch.nn as nn

from .up import Up


class Net(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.down = nn.Conv2d(c, c, 3, stride=2, padding=1)
        self.up = Up(c)

    def forward(self, x, y):
        return self.up(self.down({a}), {skip})
"""


def test_block_built_in_init_gets_the_declared_tensor(tmp_path):
    init = _init("Net", "net", f"{_HW}, {_HW}", "torch.randn(1, 4, 16, 16), torch.randn(1, 4, 16, 16)")
    f = _run(tmp_path, {"__init__.py": init, "net.py": _NET.format(a="y", skip="x"), "up.py": _UP}, "e18a")
    assert code_hits(f, "EXL111") == [("up.py", 13, "error", ALL)]


def test_block_given_an_input_not_declared_dynamic_stays_a_warning(tmp_path):
    # only `y` is declared dynamic; the block gets `x` (and a conv of it)
    init = _init("Net", "net", f"None, {_HW}", "torch.randn(1, 4, 16, 16), torch.randn(1, 4, 16, 16)")
    f = _run(tmp_path, {"__init__.py": init, "net.py": _NET.format(a="x", skip="x"), "up.py": _UP}, "e18b")
    assert [h[2] for h in code_hits(f, "EXL111")] == ["warning"]


# ---- (a) nn.ModuleList items, the input rebound by a residual sum ------------------------------

_WINDOW = """import torch.nn as nn
import torch.nn.functional as F


class WindowBlock(nn.Module):
    def __init__(self, c=4, window=8):
        super().__init__()
        self.window = window
        self.mix = nn.Conv2d(c, c, 1)

    def forward(self, x):
        B, C, H, W = x.shape
        pad_r = (self.window - W % self.window) % self.window
        if pad_r > 0:
            x = F.pad(x, (0, pad_r))
        return self.mix(x)[..., :W]
"""

_STACK = """import torch.nn as nn

from .blocks import WindowBlock


class Stack(nn.Module):
    def __init__(self, c=4, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([WindowBlock(c) for _ in range(depth)])

    def forward(self, x):
        for blk in self.blocks:
            x = x + blk(x)
        return x
"""


def test_module_list_items_get_the_declared_sizes(tmp_path):
    f = _run(tmp_path, {"__init__.py": _init("Stack", "stack", _HW), "stack.py": _STACK, "blocks.py": _WINDOW},
             "e18c")
    # a size computed from a declared dim: torch.export guards on it (the ONNX exporters' kept
    # branch may be right at other sizes: a zero pad is the identity), so strict and non-strict
    assert code_hits(f, "EXL111") == [("blocks.py", 14, "error", STRICT)]


def test_module_list_items_with_only_the_batch_declared_stay_a_warning(tmp_path):
    f = _run(tmp_path, {"__init__.py": _init("Stack", "stack", _B), "stack.py": _STACK, "blocks.py": _WINDOW},
             "e18d")
    assert [h[2] for h in code_hits(f, "EXL111")] == ["warning"]


# ---- (b) a helper function's parameters: a tensor, and a size -----------------------------------

_PRE = """MEAN = 0.5


def normalize_frames(frames):
    frames = frames.clone()
    for i in range(frames.size(1)):
        frames[:, i] = frames[:, i] - MEAN
    return frames


def crop_odd(x, h):
    if h % 2 == 1:
        x = x[:, :, :-1]
    return x
"""

_FRAMES = """import torch.nn as nn

from .pre import crop_odd, normalize_frames


class FrameNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(4, 4, 1)

    def forward(self, frames):
        x = normalize_frames(frames)
        x = crop_odd(x, frames.shape[2])
        return self.conv(x)
"""


def test_helper_parameters_get_the_declared_tensor_and_size(tmp_path):
    init = _init("FrameNet", "model", '{1: torch.export.Dim("t", min=2, max=16), 2: torch.export.Dim("h", min=2, max=16)}',
                 "torch.randn(1, 4, 4, 8, 8)")
    f = _run(tmp_path, {"__init__.py": init, "model.py": _FRAMES, "pre.py": _PRE}, "e18e")
    assert code_hits(f, "EXL111") == [("pre.py", 6, "error", ALL), ("pre.py", 12, "error", STRICT)]


def test_helper_parameters_with_other_dims_declared_stay_warnings(tmp_path):
    init = _init("FrameNet", "model", _B, "torch.randn(1, 4, 4, 8, 8)")
    f = _run(tmp_path, {"__init__.py": init, "model.py": _FRAMES, "pre.py": _PRE}, "e18f")
    assert [(h[1], h[2]) for h in code_hits(f, "EXL111")] == [(6, "warning"), (12, "warning")]


# ---- (c) a method inherited from a base class in another file ----------------------------------

_BASE = """import torch.nn as nn


class PatchBase(nn.Module):
    def __init__(self, patch=4):
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv2d(4, 8, patch, patch)

    def embed(self, x):
        _, _, H, W = x.shape
        assert H % self.patch == 0
        return self.proj(x).flatten(2)
"""

_BACKBONE = """from .base import PatchBase


class Backbone(PatchBase):
    def forward(self, x, y):
        return self.embed(x) + y.mean()
"""


def test_inherited_method_gets_the_declared_dims(tmp_path):
    init = _init("Backbone", "backbone", f"{_HW}, None", "torch.randn(1, 4, 16, 16), torch.randn(1, 4, 16, 16)")
    f = _run(tmp_path, {"__init__.py": init, "backbone.py": _BACKBONE, "base.py": _BASE}, "e18g")
    assert code_hits(f, "EXL111") == [("base.py", 12, "error", STRICT)]


def test_inherited_method_given_an_input_not_declared_stays_a_warning(tmp_path):
    # H/W of `y` are declared, not those of `x` that the method checks
    init = _init("Backbone", "backbone", f"None, {_HW}", "torch.randn(1, 4, 16, 16), torch.randn(1, 4, 16, 16)")
    f = _run(tmp_path, {"__init__.py": init, "backbone.py": _BACKBONE, "base.py": _BASE}, "e18h")
    assert code_hits(f, "EXL111") == [("base.py", 12, "warning", STRICT)]


# ---- what a project module returns, and torch.nn layers that keep the dim indices ---------------

_BLOCKS = """import torch.nn as nn
import torch.nn.functional as F


class ConvBNReLU(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride, 1)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class Tokens(nn.Module):
    def forward(self, x):
        return x.flatten(2)
"""

_CTX = """import torch.nn as nn
import torch.nn.functional as F

from .blocks import ConvBNReLU, Tokens


class Context(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = {stem}

    def forward(self, x):
        feat = self.stem(x)
        size = [int(t) for t in feat.size()[2:]]
        return F.interpolate(feat, size=size)
"""


def test_what_a_project_module_returns_keeps_the_declared_dims(tmp_path):
    files = {"__init__.py": _init("Context", "ctx", _HW, "torch.randn(1, 3, 32, 32)"),
             "ctx.py": _CTX.format(stem="ConvBNReLU(3, 8, 2)"), "blocks.py": _BLOCKS}
    f = _run(tmp_path, files, "e18i")
    assert [(h[0], h[1], h[2]) for h in code_hits(f, "EXL137")] == [("ctx.py", 14, "error")]


def test_a_project_module_that_reshapes_carries_no_dims(tmp_path):
    files = {"__init__.py": _init("Context", "ctx", _HW, "torch.randn(1, 3, 32, 32)"),
             "ctx.py": _CTX.format(stem="Tokens()"), "blocks.py": _BLOCKS}
    f = _run(tmp_path, files, "e18j")
    assert [(h[0], h[1], h[2]) for h in code_hits(f, "EXL137")] == [("ctx.py", 14, "warning")]


# ---- a tensor made with torch.arange of a declared size, handed to a method ---------------------

_POINTS = """import torch
import torch.nn as nn


class Points(nn.Module):
    def _mesh(self, x, y):
        return x.repeat(len(y)), y.repeat_interleave(len(x))

    def forward(self, feat):
        h, w = feat.shape[-2], feat.shape[-1]
        xx, yy = self._mesh(torch.arange(0, w), torch.arange(0, h))
        return feat.flatten(2) + (xx + yy).float()
"""


def test_arange_of_a_declared_size_has_a_dynamic_dim_0(tmp_path):
    f = _run(tmp_path, {"__init__.py": _init("Points", "points", _HW), "points.py": _POINTS}, "e18k")
    assert [(h[1], h[2]) for h in code_hits(f, "EXL120")] == [(7, "error"), (7, "error")]


def test_arange_of_a_static_size_has_no_dynamic_dim(tmp_path):
    f = _run(tmp_path, {"__init__.py": _init("Points", "points", _B), "points.py": _POINTS}, "e18l")
    assert all(h[2] == "warning" for h in code_hits(f, "EXL120"))


def test_function_dims_maps_each_rule(tmp_path):
    """The propagation itself: names and dims per function (semantics.dim_flow.function_dims)."""
    import os

    from exportlint.engine import _project_facts
    from exportlint.semantics.dim_flow import REACHED, SIZE

    files = write_package(tmp_path, {"__init__.py": _init("Stack", "stack", _HW), "stack.py": _STACK,
                                     "blocks.py": _WINDOW}, "e18m")
    texts = {p: open(p, "rb").read() for p in files}
    out: dict = {}
    _project_facts(files, texts, None, None, out)
    blocks = out[os.path.abspath([p for p in files if p.endswith("blocks.py")][0])]
    assert blocks["WindowBlock.forward"]["x"] == {2, 3}
    assert blocks["WindowBlock.forward"]["W"] == {SIZE} and blocks["WindowBlock.forward"]["pad_r"] == {SIZE}
    assert "C" not in blocks["WindowBlock.forward"]  # dim 1 is not declared
    assert "WindowBlock.forward" in blocks[REACHED]


# ---- sizes of a module's own nn.Parameter handed to a helper are static ------------------------

_POS = """import math

import torch.nn.functional as F


def resize_pos(pos_embed, x, h):
    n = {size}
    side = int(math.sqrt(n))
    grid = pos_embed.reshape(1, side, side, -1).permute(0, 3, 1, 2)
    return F.interpolate(grid, size=(h, h)).flatten(2).transpose(1, 2)[:, :side * side]
"""

_EMB = """import torch
import torch.nn as nn

from .pos import resize_pos


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos_embed = nn.Parameter(torch.zeros(1, 16, 4))

    def forward(self, x):
        return x.flatten(2).transpose(1, 2) + resize_pos(self.pos_embed, x, x.shape[2])
"""


def test_a_size_of_a_handed_parameter_is_static(tmp_path):
    files = {"__init__.py": _init("Embed", "emb", _HW), "emb.py": _EMB,
             "pos.py": _POS.format(size="pos_embed.shape[1]")}
    assert code_hits(_run(tmp_path, files, "e18n"), "EXL116") == []


def test_a_size_of_the_handed_input_is_not_static(tmp_path):
    files = {"__init__.py": _init("Embed", "emb", _HW), "emb.py": _EMB,
             "pos.py": _POS.format(size="x.shape[2] * x.shape[3]")}
    assert [(h[0], h[1], h[2]) for h in code_hits(_run(tmp_path, files, "e18o"), "EXL116")] == [("pos.py", 8, "error")]


# ---- EXL149: a helper convolving with groups = the batch it is handed ---------------------------

_DYNCONV = """import torch.nn.functional as F


def per_sample_deconv(x, weight, out_channels):
    N, C, H, W = x.size()
    x = x.contiguous().view(1, N * C, H, W)
    out = F.conv_transpose2d(x, weight, padding=1, groups=N)
    return out.contiguous().view(N, out_channels, H, W)
"""

_FILTER = """import torch.nn as nn

from .dynconv import per_sample_deconv


class FilterUp(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = nn.Linear(16, 4 * 3 * 9)

    def forward(self, x, style):
        w = self.kernel(style).view(style.shape[0] * 4, 3, 3, 3)
        return per_sample_deconv(x, w, 3)
"""


def test_helper_handed_a_declared_batch_convolves_by_it(tmp_path):
    init = _init("FilterUp", "model", f"{_B}, {_B}", "torch.randn(2, 4, 8, 8), torch.randn(2, 16)")
    f = _run(tmp_path, {"__init__.py": init, "model.py": _FILTER, "dynconv.py": _DYNCONV}, "e18p")
    assert [(h[0], h[1], h[2]) for h in code_hits(f, "EXL149")] == [("dynconv.py", 7, "error"), ("model.py", 13, "error")]


def test_helper_handed_a_static_batch_is_no_error(tmp_path):
    init = _init("FilterUp", "model", f"{_HW}, None", "torch.randn(2, 4, 8, 8), torch.randn(2, 16)")
    f = _run(tmp_path, {"__init__.py": init, "model.py": _FILTER, "dynconv.py": _DYNCONV}, "e18q")
    assert [h for h in code_hits(f, "EXL149") if h[2] == "error"] == []


def test_a_dim_declared_a_multiple_keeps_the_divisibility_check_a_warning(tmp_path):
    mult = '{2: 4 * torch.export.Dim("_h", min=2, max=32), 3: 4 * torch.export.Dim("_w", min=2, max=32)}'
    init = _init("Backbone", "backbone", f"{mult}, None", "torch.randn(1, 4, 16, 16), torch.randn(1, 4, 16, 16)")
    f = _run(tmp_path, {"__init__.py": init, "backbone.py": _BACKBONE, "base.py": _BASE}, "e18r")
    assert code_hits(f, "EXL111") == [("base.py", 12, "warning", STRICT)]
