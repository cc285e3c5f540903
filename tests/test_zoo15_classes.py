"""Issue 10 (branch zoo15): EXL133 view-split-dynamic-dim, a reproducer and silent controls,
self-contained (no timm needed). Exporter behaviour measured with torch 2.13.0:
bench/labels/probes_zoo15/probe_view_split.py (its JSON-lines output next to it).

`N, C, H, W = x.size(); x.view(N, C, H // 4, 4, W // 4, 4)` (timm tresnet's SpaceToDepth,
space_to_depth.py:23, a held-out miss of zoo14) fails strict and non-strict torch.export with H/W
declared dynamic ("Constraints violated ... (L['x'].size()[2] // 4) != L['x'].size()[2]"), padded
to a multiple first or not; onnx-dynamo and onnx-legacy pass; a dim declared `4 * Dim(...)`, a
static H/W and a view of another tensor pass.
"""

from __future__ import annotations

from conftest import line_of, lint

S2D = """
import torch
from torch import nn


class SpaceToDepth(nn.Module):
    def __init__(self, block_size=4):
        super().__init__()
        self.bs = block_size

    def forward(self, x):
        N, C, H, W = x.size()
        x = x.view(N, C, H // self.bs, self.bs, W // self.bs, self.bs)  # SPLIT
        x = x.permute(0, 3, 5, 1, 2, 4).contiguous()
        return x.view(N, C * self.bs * self.bs, H // self.bs, W // self.bs)
"""

EXPORTED = S2D + """

def export(m, x):
    from torch.export import Dim
    return torch.export.export(m, (x,), dynamic_shapes={"x": {2: Dim("h", min=64, max=1024), 3: Dim("w", min=64, max=1024)}})
"""


def _f(src, **kw):
    return [f for f in lint(src, codes=["EXL133"], **kw)]


def test_space_to_depth_in_library_code_is_a_warning_at_the_view():
    (f,) = _f(S2D)
    assert f.line == line_of(S2D, "# SPLIT")
    assert f.severity.value == "warning"
    assert set(f.exporters) == {"export-strict", "export-nonstrict"}
    assert "dim(s) 2, 3" in f.message


def test_space_to_depth_exported_with_dynamic_hw_is_an_error():
    (f,) = _f(EXPORTED)
    assert f.line == line_of(EXPORTED, "# SPLIT")
    assert f.severity.value == "error"


def test_reshape_of_a_size_read_after_padding_is_reported_too():
    # measured: padding to a multiple of 4 first fails the same way (torch cannot prove divisibility)
    src = S2D.replace("        N, C, H, W = x.size()\n",
                      "        x = nn.functional.pad(x, (0, (4 - x.shape[3] % 4) % 4, 0, (4 - x.shape[2] % 4) % 4))\n"
                      "        N, C, H, W = x.shape\n").replace("x = x.view(N, C, H // self.bs", "x = x.reshape(N, C, H // self.bs")
    (f,) = _f(src)
    assert f.line == line_of(src, "# SPLIT")


def test_controls_stay_silent():
    # declared as multiples of the factor (torch's suggested fix): exports
    mult = EXPORTED.replace('Dim("h", min=64, max=1024)', '4 * Dim("h", min=16, max=256)').replace(
        'Dim("w", min=64, max=1024)', '4 * Dim("w", min=16, max=256)')
    assert _f(mult) == []
    # only the batch declared dynamic: H/W static, exports
    batch = EXPORTED.replace('{2: Dim("h", min=64, max=1024), 3: Dim("w", min=64, max=1024)}', '{0: Dim("b")}')
    assert _f(batch) == []
    # the tensor rebound between reading its size and the view by a layout op of its own: the names no
    # longer give its dims (handed through a submodule or helper it is still reported: tests/test_lead29.py)
    rebound = S2D.replace("        x = x.view(N, C, H // self.bs", "        x = x.permute(0, 1, 3, 2)\n        x = x.view(N, C, H // self.bs")
    assert _f(rebound) == []
    # a view of another tensor sized from the input (probe: other_tensor passes)
    other = S2D.replace("x = x.view(N, C, H // self.bs, self.bs, W // self.bs, self.bs)",
                        "x = torch.zeros(N, C, H, W).view(N, C, H // self.bs, self.bs, W // self.bs, self.bs)")
    assert _f(other) == []
    # library code, one split (channels into heads): not claimed
    heads = """
import torch
from torch import nn


class Attn(nn.Module):
    def forward(self, x):
        B, N, C = x.shape
        return x.reshape(B, N, 4, C // 4).transpose(1, 2)
"""
    assert _f(heads) == []
    # a module-level window-partition helper: left out (mostly fixed-size models)
    helper = """
import torch


def window_partition(x, ws: int):
    B, H, W, C = x.shape
    return x.view(B, H // ws, ws, W // ws, ws, C)
"""
    assert _f(helper) == []


# ---- EXL129 extended: F.fold with an output_size read from a shape (timm VOLO, volo.py:114) ------------
# probe_fold_size.jsonl: the legacy exporter fails ("'NoneType' object is not subscriptable (Occurred when
# translating col2im)") with the batch dynamic, H/W dynamic, or nothing dynamic, and for (1, n); a literal
# output_size passes; torch.export (strict, non-strict) and onnx-dynamo pass every case. Built from the
# held-out volo_d1's legacy failure after the held-out figure: not held out.

FOLD = """
import torch
import torch.nn.functional as F
from torch import nn


class Outlook(nn.Module):
    def __init__(self):
        super().__init__()
        self.unfold = nn.Unfold(kernel_size=3, padding=1, stride=2)

    def forward(self, x):
        B, H, W, C = x.shape
        u = self.unfold(x.permute(0, 3, 1, 2))
        return F.fold(u, output_size=(H, W), kernel_size=3, padding=1, stride=2)  # FOLD
"""


def _fold(src, **kw):
    return [f for f in lint(src, codes=["EXL129"], **kw)]


def test_fold_to_a_size_from_a_shape_is_a_legacy_error_in_every_mode():
    for kw in ({}, {"dynamic_shapes": False}, {"dynamic_shapes": True}):
        (f,) = _fold(FOLD, **kw)
        assert f.line == line_of(FOLD, "# FOLD")
        assert f.severity.value == "error"
        assert f.exporters == ("onnx-legacy",)
        assert "col2im" in f.message


def test_fold_to_a_shape_slice_or_an_istft_length_is_reported_too():
    # probe cases shape_index (`x.shape[-2:]`) and mixed (`(1, n)`, n computed from a size): legacy fails
    for rep in ("output_size=x.shape[1:3]", "output_size=(1, (W - 1) * 2 + 1)"):
        src = FOLD.replace("output_size=(H, W)", rep)
        (f,) = _fold(src)
        assert f.line == line_of(src, "# FOLD") and f.exporters == ("onnx-legacy",)


def test_fold_to_a_constant_size_stays_silent():
    assert _fold(FOLD.replace("output_size=(H, W)", "output_size=(8, 8)")) == []
    # a config int, not a size
    cfg = FOLD.replace("    def forward(self, x):", "    def forward(self, x, size: int = 8):").replace(
        "output_size=(H, W)", "output_size=(size, size)")
    assert _fold(cfg) == []
