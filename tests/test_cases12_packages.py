"""Classes fixed from the held-out batch 11 of multi-file real-issue cases (issue 10), on the
case-package branch of stop 23.

Measured with torch 2.13 (bench/data/cases_truth.json; same-file probe in the test's text):

- a project decorator on ``forward`` that defines and returns a wrapper
  (transformers' ``@dynamic_rope_update``): the exporters call the wrapper with the forward's
  arguments, and a data-dependent branch in a helper the wrapper calls fails strict
  ("Data-dependent branching"), non-strict and onnx-dynamo ("Could not guard on data-dependent
  expression") at the helper's line; legacy passes with a TracerWarning there. Same file or
  another file of the project. A decorator whose wrapper only calls the forward (autocast off)
  or one returning the function itself: every exporter passes.
"""

from __future__ import annotations

from pathlib import Path

from conftest import lint_package as _lint
from conftest import write_package


def _codes(findings, code):
    return sorted((Path(f.path).name, f.line) for f in findings if f.code == code)


_ROPE_UTILS = """from functools import wraps

import torch


def longrope_frequency_update(module, position_ids):
    seq_len = torch.max(position_ids) + 1
    if seq_len > module.original_max_position_embeddings:
        module.inv_freq = module.long_inv_freq
    else:
        module.inv_freq = module.original_inv_freq


def dynamic_rope_update(rope_forward):
    @wraps(rope_forward)
    def wrapper(self, x, position_ids):
        {call}
        return rope_forward(self, x, position_ids)

    return wrapper


def mark(fn):
    fn._marked = True
    return fn
"""

_ROTARY = """import torch
import torch.nn as nn

from .rope_utils import dynamic_rope_update, mark


class LongRopeEmbedding(nn.Module):
    def __init__(self, dim=16, original_max_position_embeddings=4):
        super().__init__()
        self.original_max_position_embeddings = original_max_position_embeddings
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("original_inv_freq", inv, persistent=False)
        self.register_buffer("long_inv_freq", inv / 4, persistent=False)
        self.inv_freq = inv

    @{deco}
    def forward(self, x, position_ids):
        freqs = position_ids[..., None].float() * self.inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        return x * emb.cos() + x * emb.sin()
"""


def _pkg(tmp_path, call="longrope_frequency_update(self, position_ids)", deco="dynamic_rope_update"):
    return write_package(tmp_path, {"rope_utils.py": _ROPE_UTILS.format(call=call),
                                    "rotary.py": _ROTARY.format(deco=deco)}, "app12")


def test_wrapper_of_a_decorator_in_another_file_is_followed(tmp_path):
    f = _lint(_pkg(tmp_path))
    assert _codes(f, "EXL101") == [("rope_utils.py", 8)]
    hit = [x for x in f if x.code == "EXL101"][0]
    assert {"export-strict", "export-nonstrict", "onnx-dynamo"} <= set(hit.exporters)


def test_wrapper_without_the_helper_call_is_silent(tmp_path):
    f = _lint(_pkg(tmp_path, call="pass"))
    assert _codes(f, "EXL101") == []


def test_decorator_returning_the_function_adds_nothing(tmp_path):
    # `mark` returns `forward` itself: the helper is never called on the export path
    f = _lint(_pkg(tmp_path, deco="mark"))
    assert _codes(f, "EXL101") == []


_SAME = """from functools import wraps

import torch
import torch.nn as nn


def longrope_frequency_update(module, position_ids):
    seq_len = torch.max(position_ids) + 1
    if seq_len > module.original_max_position_embeddings:
        module.inv_freq = module.long_inv_freq
    else:
        module.inv_freq = module.original_inv_freq


def dynamic_rope_update(rope_forward):
    @wraps(rope_forward)
    def wrapper(self, x, position_ids):
        longrope_frequency_update(self, position_ids)
        return rope_forward(self, x, position_ids)

    return wrapper


def no_autocast(fn):
    @wraps(fn)
    def wrapper(self, *args, **kwargs):
        with torch.autocast("cpu", enabled=False):
            return fn(self, *args, **kwargs)

    return wrapper


class LongRopeEmbedding(nn.Module):
    def __init__(self, dim=16, original_max_position_embeddings=4):
        super().__init__()
        self.original_max_position_embeddings = original_max_position_embeddings
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("original_inv_freq", inv, persistent=False)
        self.register_buffer("long_inv_freq", inv / 4, persistent=False)
        self.inv_freq = inv

    @{deco}
    def forward(self, x, position_ids):
        freqs = position_ids[..., None].float() * self.inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        return x * emb.cos() + x * emb.sin()
"""


def test_wrapper_of_a_decorator_in_the_same_file_is_followed(tmp_path):
    p = tmp_path / "rope.py"
    p.write_text(_SAME.format(deco="dynamic_rope_update"))
    assert _codes(_lint([str(p)]), "EXL101") == [("rope.py", 9)]


def test_same_file_wrapper_that_only_calls_forward_is_silent(tmp_path):
    p = tmp_path / "rope.py"
    p.write_text(_SAME.format(deco="no_autocast"))
    assert _codes(_lint([str(p)]), "EXL101") == []


# ---------------------------------------------------------------------------------------
# EXL129: a size as a pooling kernel/stride or an interpolate scale_factor (batch 11's
# pkg_pool_kernel_from_shape / pkg_pos_embed_scale_factor; probes in rules/EXL129.md)
# ---------------------------------------------------------------------------------------
_POOL_MODEL = """import torch
import torch.nn.functional as F


class M(torch.nn.Module):
    def forward(self, x):
        h, w = x.shape[-2:]
        return {expr}


example_args = (torch.randn(1, 3, 32, 32),)
dynamic_shapes = ({dims},)

if __name__ == "__main__":
    torch.export.export(M(), example_args, dynamic_shapes=dynamic_shapes)
"""
_HW = '{2: torch.export.Dim("H", min=16, max=64), 3: torch.export.Dim("W", min=16, max=64)}'


def _pool(tmp_path, expr, dims=_HW):
    p = tmp_path / "m.py"
    p.write_text(_POOL_MODEL.format(expr=expr, dims=dims))
    return [(x.line, x.severity.value) for x in _lint([str(p)]) if x.code == "EXL129"]


def test_pool_kernel_from_sizes_is_reported(tmp_path):
    assert _pool(tmp_path, "F.avg_pool2d(x, kernel_size=(h // 4, w // 4), stride=(h // 4, w // 4))") == [(8, "error")]


def test_global_pool_by_kernel_size_is_reported(tmp_path):
    assert _pool(tmp_path, "F.avg_pool2d(x, x.size()[2:])") == [(8, "error")]


def test_scale_factor_from_size_is_reported(tmp_path):
    assert _pool(tmp_path, "F.interpolate(x, scale_factor=h / 16)") == [(8, "error")]


def test_constant_kernel_and_output_size_are_silent(tmp_path):
    # measured: pass with all four exporters and match eager at other sizes
    assert _pool(tmp_path, "F.avg_pool2d(x, 2) + F.interpolate(x, scale_factor=2.0)[..., ::2, ::2]") == []
    assert _pool(tmp_path, "F.interpolate(x, size=(h // 2, w // 2))") == []


def test_only_batch_dynamic_names_legacy_only(tmp_path):
    # measured (batch Dim(min=2), example batch 2): strict and non-strict pass; legacy with
    # dynamic_axes on the batch fails ("Failed to export a node ... not constant")
    f = tmp_path / "m.py"
    f.write_text(_POOL_MODEL.format(expr="F.avg_pool2d(x, x.size()[2:])",
                                    dims='{0: torch.export.Dim("B", min=2, max=8)}'))
    got = [(x.line, tuple(x.exporters)) for x in _lint([str(f)]) if x.code == "EXL129"]
    assert got == [(8, ("onnx-legacy",))]


def test_fixed_shapes_kernel_silent_scale_legacy(tmp_path):
    # measured with fixed shapes: a kernel from sizes passes all four; a scale_factor from sizes
    # still fails the legacy tracer (a traced size is a tensor there)
    model = _POOL_MODEL.replace("dynamic_shapes=dynamic_shapes", "").replace("dynamic_shapes = ({dims},)\n", "")
    f = tmp_path / "m.py"
    f.write_text(model.format(expr="F.avg_pool2d(x, x.size()[2:])"))
    assert [x for x in _lint([str(f)]) if x.code == "EXL129"] == []
    f.write_text(model.format(expr="F.interpolate(x, scale_factor=h / 16)"))
    got = [(x.line, tuple(x.exporters)) for x in _lint([str(f)]) if x.code == "EXL129"]
    assert got == [(8, ("onnx-legacy",))]


_POOLING = """import torch.nn.functional as F


def pool_to_grid(x, grid):
    h, w = x.shape[-2:]
    kh, kw = h // grid, w // grid
    return F.avg_pool2d(x, kernel_size=(kh, kw), stride=(kh, kw))


def pool_fixed(x, grid):
    return F.avg_pool2d(x, kernel_size=grid, stride=grid)
"""

_BLOCK = """import torch
import torch.nn as nn

from .pooling import {fn}


class Block(nn.Module):
    def __init__(self, dim=8, grid=4):
        super().__init__()
        self.grid = grid
        self.qkv = nn.Conv2d(dim, dim, 1)

    def forward(self, x):
        k = self.qkv(x)
        return {fn}(k, self.grid).flatten(2)
"""

_INIT = """import torch

from .block import Block

model = Block()
example_args = (torch.randn(1, 8, 32, 32),)
dynamic_shapes = ({2: torch.export.Dim("H", min=16, max=64), 3: torch.export.Dim("W", min=16, max=64)},)
"""


def test_helper_in_another_file_is_reported_at_its_call(tmp_path):
    files = write_package(tmp_path, {"__init__.py": _INIT, "pooling.py": _POOLING,
                                     "block.py": _BLOCK.format(fn="pool_to_grid")}, "app12p")
    got = sorted((Path(x.path).name, x.line, x.severity.value) for x in _lint(files) if x.code == "EXL129")
    # engine18: the declared model hands the helper its declared H/W (`self.qkv(x)`, a Conv2d,
    # keeps dims 2 and 3: semantics/dim_flow.py), so the helper's file is exported with dynamic
    # dims as with a real export call, and the helper's line is an error too
    assert got == [("block.py", 15, "error"), ("pooling.py", 7, "error")]


def test_helper_with_a_fixed_kernel_is_silent(tmp_path):
    files = write_package(tmp_path, {"__init__.py": _INIT, "pooling.py": _POOLING,
                                     "block.py": _BLOCK.format(fn="pool_fixed")}, "app12q")
    assert [x for x in _lint(files) if x.code == "EXL129"] == []


# ---------------------------------------------------------------------------------------
# EXL402 on tensor item assignment at legacy opset <= 10 (batch 12's
# pkg_index_put_opset9_fusion / pkg_tsm_shift_view; probes: int index, slice, tensor index,
# boolean mask each fail at opsets 9 and 10 with "Unsupported: ONNX export of index_put in
# opset 9. Please try opset version 11."; opset 11 passes; masked_fill passes at 9)
# ---------------------------------------------------------------------------------------
_SETITEM = """import torch


class M(torch.nn.Module):
    def forward(self, x):
        out = torch.zeros_like(x)
        {body}
        return out


if __name__ == "__main__":
    torch.onnx.export(M(), (torch.randn(2, 6),), "m.onnx", dynamo=False, opset_version={opset})
"""


def _setitem(tmp_path, body, opset):
    p = tmp_path / "m.py"
    p.write_text(_SETITEM.format(body=body, opset=opset))
    return [(x.line, tuple(x.exporters)) for x in _lint([str(p)]) if x.code == "EXL402"]


def test_item_assignment_at_opset_10_is_reported(tmp_path):
    assert _setitem(tmp_path, "out[:, :2] = x[:, 2:4]", 10) == [(7, ("onnx-legacy",))]
    assert _setitem(tmp_path, "out[:, 0] += 1.0", 9) == [(7, ("onnx-legacy",))]


def test_item_assignment_at_opset_11_and_masked_fill_are_silent(tmp_path):
    assert _setitem(tmp_path, "out[:, :2] = x[:, 2:4]", 11) == []
    assert _setitem(tmp_path, "out = out.masked_fill(x > 0, 1.0)", 9) == []


# ---------------------------------------------------------------------------------------
# EXL101: builtin max/min of a size and tensor data (batch 12's pkg_pad_mask_max_lengths;
# probes: max(x.size(1), l.max()) with N/T dynamic fails strict and non-strict; with a
# constant, or with static shapes, it passes)
# ---------------------------------------------------------------------------------------
_MAXMODEL = """import torch


class M(torch.nn.Module):
    def forward(self, x, lengths):
        max_len = {expr}
        return torch.arange(0, max_len).unsqueeze(0) >= lengths.unsqueeze(-1)


if __name__ == "__main__":
    torch.export.export(M(), (torch.randn(2, 10), torch.tensor([10, 7])){ds})
"""
_NT = ', dynamic_shapes=({0: torch.export.Dim("N", min=2), 1: torch.export.Dim("T", min=4)}, {0: torch.export.Dim("N", min=2)})'


def _maxlint(tmp_path, expr, ds=_NT):
    p = tmp_path / "m.py"
    p.write_text(_MAXMODEL.format(expr=expr, ds=ds))
    return [(x.line, x.severity.value, tuple(x.exporters)) for x in _lint([str(p)]) if x.code == "EXL101"]


def test_max_of_dynamic_size_and_data_is_reported(tmp_path):
    assert _maxlint(tmp_path, "max(x.size(1), lengths.max())") == [
        (6, "error", ("export-strict", "export-nonstrict", "onnx-dynamo"))]


def test_max_of_constant_and_data_or_static_shapes_is_silent(tmp_path):
    assert _maxlint(tmp_path, "max(0, lengths.max())") == []
    assert _maxlint(tmp_path, "max(x.size(1), lengths.max())", ds="") == []


# ---------------------------------------------------------------------------------------
# EXL111: a check that two sizes are equal on dims the project declares dynamic as separate
# Dims (batch 12's pkg_center_crop_square_assert; probe: `assert x.shape[2] == x.shape[3]`
# fails strict and non-strict 'Constraints violated (W)' with Dim H and Dim W, passes with one
# Dim S for both)
# ---------------------------------------------------------------------------------------
_SQUARE = """import torch
from torch.export import Dim

H, W, S = Dim("H", min=16, max=64), Dim("W", min=16, max=64), Dim("S", min=16, max=64)


class M(torch.nn.Module):
    def forward(self, x):
        assert x.shape[2] == x.shape[3]
        return x * 2


if __name__ == "__main__":
    torch.export.export(M(), (torch.randn(1, 3, 24, 24),), dynamic_shapes={{"x": {dims}}})
"""


def _square(tmp_path, dims):
    p = tmp_path / "m.py"
    p.write_text(_SQUARE.format(dims=dims))
    return [(x.line, tuple(x.exporters)) for x in _lint([str(p)]) if x.code == "EXL111"]


def test_equal_sizes_check_on_separate_dynamic_dims_is_reported(tmp_path):
    assert _square(tmp_path, "{2: H, 3: W}") == [(9, ("export-strict", "export-nonstrict"))]


def test_equal_sizes_check_on_one_dim_or_static_dims_is_silent(tmp_path):
    assert _square(tmp_path, "{2: S, 3: S}") == []
    assert _square(tmp_path, '{0: Dim("B", min=2)}') == []


# ---------------------------------------------------------------------------------------
# EXL401 at the call of a helper (another file) whose op onnx-dynamo cannot translate
# (batch 12's pkg_bincount_class_hist / pkg_masked_select_boxes: the exported node's stack
# trace stops at the forward, the truth locates dynamo's failure at the helper's call);
# `bincount` with a weights tensor (probe: fails onnx-dynamo 'aten::bincount with weights is
# not supported'; without weights it exports)
# ---------------------------------------------------------------------------------------
_STATS = """import torch


def label_histogram(labels, num_classes):
    weights = torch.linspace(0, 1, steps=8)
    return labels.bincount({w}minlength=num_classes)
"""

_CLS = """import torch.nn as nn

from .stats import label_histogram


class HistClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        logits = self.fc(x)
        return logits, label_histogram(logits.argmax(-1), 8)
"""


def _hist(tmp_path, w, prefix):
    files = write_package(tmp_path, {"stats.py": _STATS.format(w=w), "classifier.py": _CLS}, prefix)
    return sorted((Path(x.path).name, x.line, tuple(x.exporters)) for x in _lint(files) if x.code == "EXL401")


def test_bincount_with_weights_fails_dynamo_also_at_the_helper_call(tmp_path):
    got = _hist(tmp_path, "weights, ", "app12h")
    assert ("classifier.py", 13, ("onnx-dynamo",)) in got
    assert any(f == "stats.py" and "onnx-dynamo" in e and "onnx-legacy" in e for f, _, e in got)


def test_bincount_without_weights_names_legacy_only(tmp_path):
    got = _hist(tmp_path, "", "app12i")
    assert got == [("stats.py", 6, ("onnx-legacy",))]


# ---------------------------------------------------------------------------------------
# EXL111: view/reshape splitting a declared-dynamic dim by a number (batch 12's
# pkg_tsm_shift_view; probe: x.view(nt // 4, 4, c, h, w) with Dim("NT") fails strict and
# non-strict 'Constraints violated (NT)'; 4 * Dim("b") passes; a view keeping the dim passes)
# ---------------------------------------------------------------------------------------
_SPLIT = """import torch
from torch.export import Dim


class M(torch.nn.Module):
    def forward(self, x):
        nt, c, h, w = x.size()
        n_batch = nt // 4
        return {expr}


if __name__ == "__main__":
    torch.export.export(M(), (torch.randn(8, 16, 4, 4),), dynamic_shapes={{"x": {{0: {dim}}}}})
"""


def _split(tmp_path, expr, dim='Dim("NT", min=4, max=64)'):
    p = tmp_path / "m.py"
    p.write_text(_SPLIT.format(expr=expr, dim=dim))
    return [(x.line, tuple(x.exporters)) for x in _lint([str(p)]) if x.code == "EXL111"]


def test_view_splitting_a_dynamic_dim_is_reported(tmp_path):
    assert _split(tmp_path, "x.view(n_batch, 4, c, h, w).mean(1)") == [(9, ("export-strict", "export-nonstrict"))]


def test_view_split_of_a_multiple_or_keeping_the_dim_is_silent(tmp_path):
    assert _split(tmp_path, "x.view(n_batch, 4, c, h, w).mean(1)", dim='4 * Dim("b", min=1, max=16)') == []
    assert _split(tmp_path, "x.view(nt, c, h * w)") == []


def test_view_split_of_a_dim_the_class_does_not_declare_is_silent(tmp_path):
    # the class declares dim 0 only: `deltas.shape[1] // 4` splits a static dim
    assert _split(tmp_path, "x.view(nt, c // 4, 4, h, w)") == []
