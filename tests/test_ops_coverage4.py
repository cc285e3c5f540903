"""EXL402 on API variants the op table learned from held-out real issue cases (bench/cases/, batch 4).

Facts measured with torch 2.13 by `exportlint ops generate` (rules/op_support.json) and by
`bench/cases_scoreboard.py --refresh`:
- `F.fold` (col2im; no OpInfo sample, so it had no record): both ONNX exporters need opset 18
  (legacy: "Exporting the operator 'aten::col2im' to ONNX opset version 12 is not supported.
  Support for this operator was added in version 18"), pytorch/pytorch#41423. `nn.Fold`'s
  forward only calls `F.fold`, so `self.fold(x)` gets that record.
- `torch.nn.utils.rnn.pad_sequence` (no OpInfo sample): the legacy exporter has no symbolic for
  `aten::pad_sequence`, pytorch/pytorch#127153.
- `F.interpolate` / `nn.Upsample` with `align_corners=True` (linear, bilinear, trilinear): the
  legacy exporter needs opset 11 ("Unsupported: ONNX export of operator upsample_bilinear2d,
  align_corners == True"); with `align_corners` absent or False it exports from opset 9,
  pytorch/pytorch#29980.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from exportlint.config import Config
from exportlint.engine import lint_source

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "rules" / "op_support.json"
CODES = ("EXL401", "EXL402")

needs_table = pytest.mark.skipif(not TABLE.is_file(), reason="rules/op_support.json not generated")


def by_line(src: str, **cfg) -> dict[int, list]:
    out: dict[int, list] = {}
    for f in lint_source(textwrap.dedent(src), "m.py", config=Config(**cfg), codes=CODES):
        out.setdefault(f.line, []).append(f)
    return out


FOLD = """\
import torch
import torch.nn as nn


class PatchMerge(nn.Module):
    def __init__(self):
        super().__init__()
        self.fold = nn.Fold(output_size=(4, 5), kernel_size=(2, 2))

    def forward(self, x):
        return self.fold(x)
"""


@needs_table
def test_fold_module_needs_opset_18():
    got = by_line(FOLD, opset=12)
    assert list(got) == [11]
    (f,) = got[11]
    assert f.code == "EXL402" and tuple(f.exporters) == ("onnx-legacy",)
    assert "opset >= 18" in f.message
    assert by_line(FOLD, opset=18) == {}


@needs_table
def test_functional_fold_needs_opset_18():
    src = """\
    import torch
    import torch.nn.functional as F


    class M(torch.nn.Module):
        def forward(self, x):
            return F.fold(x, output_size=(4, 5), kernel_size=2)
    """
    got = by_line(src, opset=17)
    assert [f.code for f in got[7]] == ["EXL402"]
    assert by_line(src) == {}  # default opset 20


ALIGN = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners={align})

    def forward(self, x):
        y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners={align})
        return self.up(y)
"""


@needs_table
def test_align_corners_true_needs_opset_11_for_legacy():
    got = by_line(ALIGN.format(align="True"), opset=9)
    assert sorted(got) == [9, 12]  # a module's record is reported where it is built
    for line in (9, 12):
        (f,) = got[line]
        assert f.code == "EXL402" and tuple(f.exporters) == ("onnx-legacy",) and "opset >= 11" in f.message
    assert by_line(ALIGN.format(align="True"), opset=11) == {}


@needs_table
@pytest.mark.parametrize("align", ["False", "None"])
def test_align_corners_false_exports_at_opset_9(align):
    assert by_line(ALIGN.format(align=align), opset=9) == {}
    src = ALIGN.replace(", align_corners={align}", "")
    assert by_line(src, opset=9) == {}


@needs_table
def test_pad_sequence_fails_the_legacy_exporter():
    # measured (curated probe and bench/cases/pad_sequence_resampler.py, pytorch/pytorch#127153):
    # "Exporting the operator 'aten::pad_sequence' to ONNX opset version 20 is not supported";
    # torch.export and onnx-dynamo export it
    src = """\
    import torch
    from torch.nn.utils.rnn import pad_sequence


    class Resampler(torch.nn.Module):
        def forward(self, a, b):
            return pad_sequence([a, b], batch_first=True)
    """
    got = by_line(src)
    (f,) = got[7]
    assert f.code == "EXL401" and tuple(f.exporters) == ("onnx-legacy",)
    assert "aten::pad_sequence" in f.message


@needs_table
def test_unfold_upsample_spellings_and_upsampling_modules():
    # measured by `exportlint ops generate` (torch 2.13): F.unfold (im2col, no record before)
    # needs opset 11 for legacy; F.upsample is interpolate's deprecated spelling (same
    # align_corners variants); nn.UpsamplingBilinear2d is bilinear with align_corners=True
    # (legacy opset 11), nn.UpsamplingNearest2d exports from opset 9
    src = """\
    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.unfold = nn.Unfold(kernel_size=2)
            self.up2 = nn.UpsamplingBilinear2d(scale_factor=2)
            self.near = nn.UpsamplingNearest2d(scale_factor=2)

        def forward(self, x):
            p = F.unfold(x, kernel_size=2) + self.unfold(x)
            y = F.upsample(x, scale_factor=2, mode="bilinear", align_corners=True)
            z = F.upsample(x, scale_factor=2, mode="bilinear")
            return p, self.up2(y), self.near(z)
    """
    got = by_line(src, opset=10)
    assert sorted(got) == [10, 14, 15]
    assert [f.code for f in got[14]] == ["EXL402", "EXL402"]  # F.unfold and nn.Unfold's forward
    assert all("opset >= 11" in f.message and tuple(f.exporters) == ("onnx-legacy",) for fs in got.values() for f in fs)
    assert by_line(src, opset=11) == {}
