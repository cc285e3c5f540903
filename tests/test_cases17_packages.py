"""Classes fixed after the held-out batch 17 of multi-file real-issue cases (issue 10), on branch
cases17 (bench/data/cases_batch17.md), and from the errors-only gap of the cases scoreboard.

Measured with torch 2.13 (bench/data/cases_truth.json; one-file probes in
bench/labels/probes_cases17/run_probes.py, output in ``probes.out``):

- EXL111: a branch of ``forward`` on a name bound to a size of a forward input whose dim the
  export declares dynamic (``_, _, h, w = x.size()`` then ``if w % 4 != 0``), and a loop over
  ``range(<such a size>)`` / ``range(len(x))``: strict and non-strict fail ("Constraints
  violated"), onnx-dynamo exports the dim static, the legacy exporter bakes the example's branch
  or count. A test comparing a size with a module value (YOLO's grid cache,
  ``(self.nx, self.ny) != (nx, ny)``) exports everywhere and stays a warning.
- EXL137: ``int(x.size(2))`` of a declared-dynamic dim is also wrong with onnx-dynamo (static
  dims) and onnx-legacy (baked sizes), not only non-strict torch.export.
- EXL129: an interpolate ``scale_factor`` made from sizes fails the legacy exporter with fixed
  shapes too ("upsample_bicubic2d() received an invalid combination of arguments"): an error for
  onnx-legacy when the project shows no export call.
- EXL121: ``stft`` of a plain helper's parameter may have a dynamic length (a warning).

The reproducers fail on main 78715f8; the controls are silent (or unchanged) on both.
"""

from __future__ import annotations

from conftest import code_hits as _hits
from conftest import lint_package as _lint
from conftest import write_package

_ALL = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")

# ---- EXL111 through sizes bound by unpacking, and loops over declared dims ----------------------

_PAD = """import torch
import torch.nn.functional as F


class PatchEmbed(torch.nn.Module):
    def __init__(self, p=4):
        super().__init__()
        self.p = p
        self.proj = torch.nn.Conv2d(2, 8, p, stride=p)

    def forward(self, x):
        _, _, h, w = x.size()
        if w % self.p != 0:
            x = F.pad(x, (0, self.p - w % self.p))
        return self.proj(x)


example_args = (torch.randn(1, 2, 16, 16),)
dynamic_shapes = {{"x": {{{dims}}}}}
"""


def _pad(tmp_path, dims):
    return _lint(write_package(tmp_path, {"model.py": _PAD.format(dims=dims)}, "app17a"))


def test_branch_on_an_unpacked_declared_size_is_an_error(tmp_path):
    f = _pad(tmp_path, '3: torch.export.Dim("w", min=4, max=64)')
    assert _hits(f, "EXL111") == [("model.py", 13, "error", _ALL)]


def test_branch_on_an_unpacked_size_of_an_undeclared_dim_stays_a_warning(tmp_path):
    f = _pad(tmp_path, '0: torch.export.Dim("b", min=1, max=8)')
    assert [h[:3] for h in _hits(f, "EXL111")] == [("model.py", 13, "warning")]


_LOOP = """import torch


class PerItem(torch.nn.Module):
    def forward(self, x):
        b, t = x.shape[:2]
        outs = []
        for i in range({it}):
            outs.append(x[:, i] * 2)
        return torch.stack(outs, 1)


example_args = (torch.randn(2, 4, 3),)
dynamic_shapes = {{"x": {{{dims}}}}}
"""


def _loop(tmp_path, it, dims):
    return _lint(write_package(tmp_path, {"model.py": _LOOP.format(it=it, dims=dims)}, "app17b"))


def test_loop_over_a_declared_dim_is_an_error(tmp_path):
    assert _hits(_loop(tmp_path, "t", '1: torch.export.Dim("t", min=2, max=16)'), "EXL111") == [
        ("model.py", 8, "error", _ALL)]
    assert _hits(_loop(tmp_path, "x.size(1)", '1: torch.export.Dim("t", min=2, max=16)'), "EXL111") == [
        ("model.py", 8, "error", _ALL)]


def test_loop_over_an_undeclared_dim_stays_a_warning(tmp_path):
    # measured (b_loop_undeclared_dim_control): only the batch dynamic, the loop over dim 1 exports
    got = _hits(_loop(tmp_path, "t", '0: torch.export.Dim("b", min=1, max=16)'), "EXL111")
    assert [h[:3] for h in got] == [("model.py", 8, "warning")]


_LEN = """import torch


class PerItem(torch.nn.Module):
    def forward(self, x):
        outs = []
        for i in range(len(x)):
            outs.append(x[i] * 2)
        return torch.stack(outs, 0)


example_args = (torch.randn(2, 4, 3),)
dynamic_shapes = {"x": {0: torch.export.Dim("b", max=16)}}
"""


def test_loop_over_len_of_a_declared_batch_is_an_error(tmp_path):
    # measured (b_loop_range_len; bench/cases/per_image_len_loop): all four exporters wrong
    files = write_package(tmp_path, {"model.py": _LEN}, "app17c")
    assert _hits(_lint(files), "EXL111") == [("model.py", 7, "error", _ALL)]


_CACHE = """import torch
import torch.nn as nn


class Grid(nn.Module):
    def __init__(self):
        super().__init__()
        self.nx, self.ny = 0, 0
        self.grid = torch.zeros(1)

    def make(self, nx, ny):
        self.nx, self.ny = nx, ny
        self.grid = torch.zeros(ny, nx)

    def forward(self, p):
        bs, _, ny, nx = p.shape
        if (self.nx, self.ny) != (nx, ny):
            self.make(nx, ny)
        return p + self.grid


example_args = (torch.randn(1, 2, 4, 5),)
dynamic_shapes = {"p": {2: torch.export.Dim("h", min=2, max=32), 3: torch.export.Dim("w", min=2, max=32)}}
"""


def test_cache_key_comparison_with_declared_sizes_stays_a_warning(tmp_path):
    # measured (bench/cases/yolo_grid_recompute, pkg_yolo_grid_cache): every exporter passes
    got = _hits(_lint(write_package(tmp_path, {"model.py": _CACHE}, "app17d")), "EXL111")
    assert [h[:3] for h in got] == [("model.py", 17, "warning")]


# ---- EXL137 names onnx-dynamo and onnx-legacy --------------------------------------------------

_SHUFFLE = """def pixel_shuffle(x, r):
    h, w = int(x.size(2)), int(x.size(3))
    return x.reshape(x.shape[0], -1, h * r, w * r)
"""

_UP = """import torch
import torch.nn as nn

from .shuffle import pixel_shuffle


class Up(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)

    def forward(self, x):
        h, w = int(x.size(2)), int(x.size(3))
        return pixel_shuffle(self.conv(x), 2)[..., :h * 2, :w * 2]


example_args = (torch.randn(1, 1, 8, 6),)
dynamic_shapes = {"x": {2: torch.export.Dim("h", min=4, max=32), 3: torch.export.Dim("w", min=4, max=32)}}
"""


def test_int_of_a_declared_size_names_dynamo_and_legacy(tmp_path):
    f = _lint(write_package(tmp_path, {"shuffle.py": _SHUFFLE, "up.py": _UP}, "app17e"))
    both = ("export-nonstrict", "onnx-dynamo", "onnx-legacy")
    # engine18: the helper gets `self.conv(x)`, whose dims 2 and 3 are the declared ones
    # (semantics/dim_flow.py): an error there too (bench/cases/pkg_int_size_subpixel_opset10)
    assert _hits(f, "EXL137") == [("shuffle.py", 2, "error", both), ("shuffle.py", 2, "error", both),
                                  ("up.py", 13, "error", both), ("up.py", 13, "error", both)]


def test_int_of_a_static_dim_stays_silent(tmp_path):
    up = _UP.replace("int(x.size(2)), int(x.size(3))", "int(x.size(1)), int(x.size(1))")
    f = _lint(write_package(tmp_path, {"up.py": up}, "app17f"))
    assert _hits(f, "EXL137") == []


# ---- EXL129: a scale_factor from sizes fails the legacy exporter with fixed shapes too -----------

_POS = """import math

import torch.nn.functional as F


def resize_pos(pos, h, w, p):
    m = int(math.sqrt(pos.shape[1]))
    h0, w0 = h // p + 0.1, w // p + 0.1
    grid = pos.reshape(1, m, m, -1).permute(0, 3, 1, 2)
    return F.interpolate(grid, scale_factor=({sf}), mode="bicubic", align_corners=False)
"""

_VIT = """import torch
import torch.nn as nn

from .pos import resize_pos


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, 16, 8))

    def forward(self, x):
        h, w = x.shape[-2:]
        return resize_pos(self.pos, h, w, 8)
"""


def test_scale_factor_from_sizes_is_a_legacy_error_when_shapes_are_unknown(tmp_path):
    f = _lint(write_package(tmp_path, {"pos.py": _POS.format(sf="h0 / m, w0 / m"), "vit.py": _VIT}, "app17g"))
    # (the caller's warning for torch.export and onnx-dynamo, whose dims are unknown, is unchanged)
    assert _hits(f, "EXL129") == [("pos.py", 10, "error", ("onnx-legacy",)),
                                  ("vit.py", 14, "warning", ("export-strict", "export-nonstrict", "onnx-dynamo"))]


def test_constant_scale_factor_stays_silent(tmp_path):
    f = _lint(write_package(tmp_path, {"pos.py": _POS.format(sf="1.5, 1.5"), "vit.py": _VIT}, "app17h"))
    assert _hits(f, "EXL129") == []


# ---- EXL121: stft of a plain helper's waveform ---------------------------------------------------

_FEAT = """def magnitude(signals, window):
    spec = signals.stft(n_fft=512, hop_length=160, win_length=320, window=window, return_complex=True)
    return spec.abs()
"""

_FRONT = """import torch
import torch.nn as nn

from .features import magnitude


class FrontEnd(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(320))

    def forward(self, signals):
        return magnitude(signals, self.window)
{export}"""

_FIXED = """

def export():
    return torch.export.export(FrontEnd(), (torch.randn(2, 4000),))
"""


def test_stft_in_a_helper_may_have_a_dynamic_length(tmp_path):
    f = _lint(write_package(tmp_path, {"features.py": _FEAT, "front.py": _FRONT.format(export="")}, "app17i"))
    assert _hits(f, "EXL121") == [("features.py", 2, "warning", ("export-strict", "export-nonstrict"))]


def test_stft_in_a_helper_of_a_fixed_shape_project_stays_silent(tmp_path):
    # measured (f_stft_static): fixed shapes export with both torch.export modes
    f = _lint(write_package(tmp_path, {"features.py": _FEAT, "front.py": _FRONT.format(export=_FIXED)}, "app17j"))
    assert _hits(f, "EXL121") == []


# ---- EXL149: a convolution whose groups is a size (per-sample filters) ---------------------------

_DYNCONV = """import torch.nn.functional as F


def per_sample_deconv(x, weight, out_channels):
    N, C, H, W = x.size()
    x = x.contiguous().view(1, N * C, H, W)
    out = F.conv_transpose2d(x, weight, padding=1, groups={groups})
    return out.view(N, out_channels, H, W)
"""

_FILTER = """import torch
import torch.nn as nn
import torch.nn.functional as F

from .dynconv import per_sample_deconv


class DynamicFilter(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = nn.Linear(16, 4 * 3 * 9)

    def forward(self, x, style):
        n, c, h, w = x.shape
        wt = self.kernel(style).view(n * 4, 3, 3, 3)
        y = F.conv2d(x.reshape(1, n * c, h, w), wt.transpose(0, 1).reshape(n * 3, 4, 3, 3), padding=1, groups=n)
        return y + per_sample_deconv(x, wt, 3)
{tail}"""

_DECLARED = """

example_args = (torch.randn(2, 4, 8, 8), torch.randn(2, 16))
dynamic_shapes = {"x": {0: torch.export.Dim("b", min=2, max=16)}, "style": {0: torch.export.Dim("b", min=2, max=16)}}
"""

_STATIC = """

def export():
    return torch.onnx.export(DynamicFilter(), (torch.randn(2, 4, 8, 8), torch.randn(2, 16)), dynamo=False)
"""


def test_groups_from_a_declared_batch_is_an_error_and_a_helper_warns(tmp_path):
    f = _lint(write_package(tmp_path, {"dynconv.py": _DYNCONV.format(groups="N"),
                                       "model.py": _FILTER.format(tail=_DECLARED)}, "app17k"))
    onnx = ("onnx-dynamo", "onnx-legacy")
    # (and at the call into the helper, for onnx-dynamo, which locates its failure there).
    # engine18: the declared batch reaches the helper (semantics/dim_flow.py): both are errors
    # (measured, bench/cases/pkg_deconv_groups_batch: legacy fails in the helper, dynamo at the call)
    assert _hits(f, "EXL149") == [("dynconv.py", 7, "error", onnx), ("model.py", 16, "error", onnx),
                                  ("model.py", 17, "error", ("onnx-dynamo",))]


def test_depthwise_groups_of_the_channels_stay_silent(tmp_path):
    # groups=C (dim 1, the static channels): not this rule's claim. Measured
    # (c_depthwise_groups_channels: `F.conv2d(x, k.expand(c, 1, 3, 3), groups=c)`, dynamic batch):
    # strict, non-strict and onnx-dynamo pass; the legacy exporter fails there too ("kernel of
    # unknown shape": the kernel's shape is traced from `x.shape`), a class this rule leaves alone
    conv = _DYNCONV.format(groups="C")
    f = _lint(write_package(tmp_path, {"dynconv.py": conv, "model.py": _FILTER.replace("groups=n", "groups=c")
                                       .format(tail=_DECLARED)}, "app17q"))
    assert _hits(f, "EXL149") == []


def test_groups_with_fixed_shapes_or_a_constant_stays_silent(tmp_path):
    # measured (c_conv_groups_batch_static, c_conv_dyn_weight_static_shape): all four pass
    f = _lint(write_package(tmp_path, {"dynconv.py": _DYNCONV.format(groups="N"),
                                       "model.py": _FILTER.format(tail=_STATIC)}, "app17l"))
    assert _hits(f, "EXL149") == []
    f = _lint(write_package(tmp_path, {"dynconv.py": _DYNCONV.format(groups="2"),
                                       "model.py": _FILTER.replace("groups=n", "groups=2").format(tail=_DECLARED)},
                            "app17m"))
    assert _hits(f, "EXL149") == []


# ---- EXL119: the attention's sequence is a declared dim of a forward input ------------------------

_ATTN = """import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = nn.Sequential(nn.LayerNorm(12), nn.Linear(12, 32), nn.ReLU())
        self.layer = nn.TransformerEncoderLayer(32, 4, 64, batch_first={bf})

    def forward(self, x):
        x = self.pre(x)
        x = self.layer(x)
        return x.mean(1)


example_args = (torch.randn(4, 30, 12),)
dynamic_shapes = {{"x": {{{dims}}}}}
"""


def _attn(tmp_path, bf, dims, prefix):
    return _hits(_lint(write_package(tmp_path, {"model.py": _ATTN.format(bf=bf, dims=dims)}, prefix)), "EXL119")


def test_attention_on_a_declared_sequence_is_an_error(tmp_path):
    # measured (rules/EXL119.md; bench/cases/transformer_layer_pre_linear): legacy wrong at other lengths
    got = _attn(tmp_path, "True", '0: torch.export.Dim("b", max=64), 1: torch.export.Dim("t", min=2, max=64)',
                "app17n")
    assert got == [("model.py", 13, "error", ("onnx-legacy",))]


def test_attention_whose_sequence_is_not_declared_stays_a_warning(tmp_path):
    # sequence-first layer, only dim 1 (its batch) declared: the sequence is static
    got = _attn(tmp_path, "False", '1: torch.export.Dim("b", max=64)', "app17o")
    assert got == [("model.py", 13, "warning", ("onnx-legacy",))]
    # batch-first, only the batch declared: silent (measured: another batch runs)
    assert _attn(tmp_path, "True", '0: torch.export.Dim("b", max=64)', "app17p") == []


def test_scale_factor_made_a_python_float_is_not_a_legacy_error(tmp_path):
    # measured (s_scale_math_sqrt_static, s_scale_float_static): math.sqrt / float() of sizes bake a
    # Python float, and the legacy exporter passes with fixed shapes (lightly's interpolate_pos_encoding)
    pos = _POS.replace("scale_factor=({sf})", "scale_factor=math.sqrt(pos.shape[1] * h / {sf})")
    f = _lint(write_package(tmp_path, {"pos.py": pos.format(sf="64"), "vit.py": _VIT}, "app17r"))
    assert [h for h in _hits(f, "EXL129") if h[2] == "error"] == []
