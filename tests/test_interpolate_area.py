"""EXL113 on `F.interpolate(..., mode="area")` (adaptive average pooling to the output size).

Measured with torch 2.13 (rules/EXL113.md), dynamic H/W exported at 14x14, run at 15x17:
onnx-dynamo diverges for `size=(7, 7)` (shape (1, 2, 7, 8) vs eager (1, 2, 7, 7)) and for
`scale_factor=0.5`; legacy fails both ("input size not accessible"; "output_size is not
constant", already EXL401 from the op table); `size=(1, 1)` exports with both. Held-out case
bench/cases/interpolate_area_mode.py (pytorch/pytorch#41009).
"""

from __future__ import annotations

import textwrap

from exportlint.config import Config
from exportlint.engine import lint_source


def lint(src: str, **cfg) -> list:
    return list(lint_source(textwrap.dedent(src), "m.py", config=Config(**cfg), codes=("EXL113",)))


SRC = """\
import torch
import torch.nn.functional as F


class Down(torch.nn.Module):
    def forward(self, x):
        return F.interpolate(x, {args})
"""


def test_area_to_a_size_is_adaptive_pooling():
    (f,) = lint(SRC.format(args='size=(7, 7), mode="area"'))
    assert f.line == 7 and set(f.exporters) == {"onnx-dynamo", "onnx-legacy"}
    (f,) = lint(SRC.format(args='(7, 7), None, "area"'))
    assert set(f.exporters) == {"onnx-dynamo", "onnx-legacy"}


def test_area_by_scale_factor_names_onnx_dynamo_only():
    (f,) = lint(SRC.format(args='scale_factor=0.5, mode="area"'))
    assert tuple(f.exporters) == ("onnx-dynamo",)
    # a project that exports fixed shapes: onnx-dynamo is right there
    assert lint(SRC.format(args='scale_factor=0.5, mode="area"'), dynamic_shapes=False) == []


def test_global_area_and_other_modes_are_quiet():
    assert lint(SRC.format(args='size=(1, 1), mode="area"')) == []
    assert lint(SRC.format(args='size=1, mode="area"')) == []
    assert lint(SRC.format(args='scale_factor=0.5, mode="bilinear"')) == []
    assert lint(SRC.format(args='scale_factor=2')) == []
