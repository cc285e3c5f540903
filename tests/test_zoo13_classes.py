"""Issue 10 (branch zoo13): failing-line classes of the zoo scoreboard's misses, each with a
reproducer and silent controls, self-contained (no timm / transformers needed). Exporter behaviour
measured with torch 2.13.0: bench/labels/probes_zoo13/ (each probe's JSON-lines output next to it).

- EXL117 without declared dims: a constant slice of a module forward's input (also in a same-file
  helper the forward hands the input to) is a warning. This is transformers' `shift_tokens_right`,
  `modeling_bart.py:63`, where strict and non-strict fail with `Dim("seq", min=2)`
  (probe_shift_slice.jsonl).
- EXL131: max/avg pooling with ceil_mode=True and a stride above 1 fails strict and non-strict
  torch.export on a dynamic H/W (probe_ceil_pool.jsonl, probe_ceil_pool_more.jsonl).
"""

from __future__ import annotations

import textwrap

from conftest import line_of, lint

from exportlint.config import Config
from exportlint.engine import lint_paths


def _at(src, marker, code):
    ln = line_of(src, marker)
    return [f for f in lint(src) if f.code == code and f.line == ln]


# ---- EXL117 in a library (no export call): shift-right helper, slices of forward inputs ------------
SHIFT = """
import torch
import torch.nn as nn


def shift_tokens_right(input_ids, pad_token_id, decoder_start_token_id):
    shifted_input_ids = input_ids.new_zeros(input_ids.shape)
    shifted_input_ids[:, 1:] = input_ids[:, :-1].clone()  # SHIFT
    shifted_input_ids[:, 0] = decoder_start_token_id  # ONE
    return shifted_input_ids


def take_last(ids):
    return ids[:, -1]  # LASTONE


class Base(nn.Module):
    pass


class Model(Base):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 8)

    def forward(self, input_ids, decoder_input_ids=None):
        if decoder_input_ids is None:
            decoder_input_ids = shift_tokens_right(input_ids, 0, 2)
        last = take_last(input_ids)
        head = input_ids[:, :4]  # UPPERPOS
        return self.emb(decoder_input_ids), self.emb(input_ids[:, 1:]), last, head  # DROPFIRST


class Rebound(nn.Module):
    def forward(self, x):
        x = torch.cat([x, x], 1)
        return x[:, 1:]  # REBOUND
"""


def test_slice_of_forward_input_in_a_library_is_a_warning():
    for marker in ("# SHIFT", "# DROPFIRST"):
        (f,) = _at(SHIFT, marker, "EXL117")
        assert f.severity.value == "warning", marker
        assert set(f.exporters) == {"export-strict", "export-nonstrict"}, marker
        assert "min=3" in f.message
    (f,) = _at(SHIFT, "# SHIFT", "EXL117")
    assert "handed in by `Model.forward`" in f.message


def test_slices_that_keep_the_dim_or_rebound_inputs_stay_silent():
    for marker in ("# ONE", "# LASTONE", "# UPPERPOS", "# REBOUND"):
        assert _at(SHIFT, marker, "EXL117") == [], marker


def test_declared_dims_keep_the_error_and_a_minimum_silences():
    src = SHIFT + textwrap.dedent("""
    from torch.export import Dim

    def export():
        return torch.export.export(Model(), (torch.zeros(2, 8, dtype=torch.long),),
                                   dynamic_shapes={"input_ids": {1: Dim("seq")}})
    """)
    (f,) = _at(src, "# DROPFIRST", "EXL117")
    assert f.severity.value == "error"
    bounded = src.replace('Dim("seq")', 'Dim("seq", min=3)')
    assert _at(bounded, "# DROPFIRST", "EXL117") == []
    fixed = SHIFT + textwrap.dedent("""
    def export():
        return torch.export.export(Model(), (torch.zeros(2, 8, dtype=torch.long),))
    """)
    assert [f for f in lint(fixed) if f.code == "EXL117"] == []  # fixed shapes: nothing narrows to 1


# ---- EXL131: ceil-mode pooling ----------------------------------------------------------------------
POOL = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, hidden_dim=1280):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, 2), nn.ReLU(inplace=True),
                                      nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True))
        self.avg = nn.AvgPool2d(2, 2, ceil_mode=True, count_include_pad=False)
        self.pos = nn.AvgPool2d(2, 2, 0, True)
        self.same = nn.MaxPool2d(kernel_size=2, stride=1, ceil_mode=True)
        self.floor = nn.MaxPool2d(3, 2)
        self.plain = nn.Sequential(nn.Conv2d(8, 8, 1), nn.MaxPool2d(3, 2))
        self.cfg = nn.AvgPool2d(hidden_dim, ceil_mode=True)

    def forward(self, x):
        x = self.features(x)  # SEQ
        x = self.avg(x)  # AVG
        x = self.pos(x)  # POSITIONAL
        x = self.same(x)  # STRIDE1
        x = self.floor(x)  # FLOOR
        x = self.plain(x)  # PLAIN
        y = F.max_pool2d(x, 3, 2, ceil_mode=True)  # FUNC
        z = F.avg_pool2d(x, 3, 2, 0, False)  # FUNCFLOOR
        w = F.max_pool2d(x, 3, 1, ceil_mode=True)  # FUNCSTRIDE1
        v = self.cfg(x)  # CONFIGKERNEL
        return y, z, w, v
"""


def test_ceil_mode_pool_with_stride_is_reported_at_the_call():
    for marker in ("# SEQ", "# AVG", "# POSITIONAL", "# FUNC"):
        (f,) = _at(POOL, marker, "EXL131")
        assert f.severity.value == "warning", marker  # no export call: dims unknown
        assert set(f.exporters) == {"export-strict", "export-nonstrict"}, marker


def test_floor_mode_and_stride_one_stay_silent():
    for marker in ("# STRIDE1", "# FLOOR", "# PLAIN", "# FUNCFLOOR", "# FUNCSTRIDE1", "# CONFIGKERNEL"):
        assert _at(POOL, marker, "EXL131") == [], marker


def test_ceil_pool_severity_follows_the_declared_dims():
    hw = POOL + textwrap.dedent("""
    from torch.export import Dim

    def export():
        return torch.export.export(Net(), (torch.randn(2, 3, 64, 64),),
                                   dynamic_shapes={"x": {2: Dim("h", min=64), 3: Dim("w", min=64)}})
    """)
    (f,) = _at(hw, "# SEQ", "EXL131")
    assert f.severity.value == "error"
    batch_only = hw.replace('{2: Dim("h", min=64), 3: Dim("w", min=64)}', '{0: Dim("b")}')
    assert [f for f in lint(batch_only) if f.code == "EXL131"] == []
    static = POOL + textwrap.dedent("""
    def export():
        return torch.export.export(Net(), (torch.randn(2, 3, 64, 64),))
    """)
    assert [f for f in lint(static) if f.code == "EXL131"] == []


def test_ceil_pool_survives_the_reduced_init(tmp_path):
    # the CLI path parses a reduced text whose __init__ writes torch constructors without their
    # arguments (semantics/reduce.py): a pooling constructor that may set ceil_mode keeps them
    p = tmp_path / "net.py"
    p.write_text(textwrap.dedent(POOL))
    r = lint_paths([str(p)], Config())
    got = sorted(f.line for f in r.findings if f.code == "EXL131")
    want = sorted(line_of(POOL, m) for m in ("# SEQ", "# AVG", "# POSITIONAL", "# FUNC"))
    assert got == want


def test_library_slices_of_offsets_and_new_axes_stay_silent():
    src = textwrap.dedent("""
    import torch
    import torch.nn as nn


    class VisionAttention(nn.Module):
        def forward(self, hidden_states, cu_seqlens, reference_points, grid_thw):
            lengths = cu_seqlens[1:] - cu_seqlens[:-1]  # OFFSETS
            pts = reference_points[:, :, None, :, 2:] * 0.5  # NEWAXIS
            t = grid_thw[:, 0]
            hw = grid_thw[:, 1:]  # RECORD
            return hidden_states[:, 1:, :].mean(1), lengths, pts, t, hw  # TOKENS
    """)
    assert _at(src, "# OFFSETS", "EXL117") == []
    assert _at(src, "# NEWAXIS", "EXL117") == []
    assert _at(src, "# RECORD", "EXL117") == []  # (N, 3) rows of t, h, w: field 0 is read alone
    (f,) = _at(src, "# TOKENS", "EXL117")
    assert f.severity.value == "warning"


# ---- EXL137 in a library (no export call): int() of a trailing size -------------------------------
TFPAD = """
import torch
import torch.nn as nn
import torch.nn.functional as F


def apply_tf_padding(features, conv_layer):
    in_height = int(features.shape[-2])  # NEGH
    in_width = int(features.size(3))  # SIZE3
    batch = int(features.shape[0])  # BATCH
    chans = int(features.shape[1])  # CHANS
    pad = max(conv_layer.kernel_size[0] - in_height % conv_layer.stride[0], 0)
    return F.pad(features, (0, pad, 0, pad)), in_width, batch, chans


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, 2)

    def forward(self, x):
        size = [int(t) for t in x.size()[2:]]  # COMP
        last = int(x.shape[-1])  # INFORWARD
        y, w, b, c = apply_tf_padding(x, self.conv)
        return self.conv(y), size, last
"""


def test_int_of_trailing_size_in_a_library_is_a_warning():
    for marker in ("# NEGH", "# SIZE3", "# COMP", "# INFORWARD"):
        (f,) = _at(TFPAD, marker, "EXL137")
        assert f.severity.value == "warning" and f.exporters == ("export-nonstrict", "onnx-dynamo", "onnx-legacy"), marker


def test_int_of_batch_or_channels_and_fixed_shapes_stay_silent():
    for marker in ("# BATCH", "# CHANS"):
        assert _at(TFPAD, marker, "EXL137") == [], marker
    fixed = TFPAD + textwrap.dedent("""
    def export():
        return torch.export.export(Layer(), (torch.randn(1, 3, 32, 32),))
    """)
    assert [f for f in lint(fixed) if f.code == "EXL137"] == []
    # declared dims: the declared path alone decides (a negative index is not matched to them)
    declared = TFPAD + textwrap.dedent("""
    from torch.export import Dim

    def export():
        return torch.export.export(Layer(), (torch.randn(1, 3, 32, 32),),
                                   dynamic_shapes={"x": {2: Dim("h", min=16), 3: Dim("w", min=16)}})
    """)
    got = {f.line: f.severity.value for f in lint(declared) if f.code == "EXL137"}
    assert got == {line_of(TFPAD, "# COMP"): "error"}
