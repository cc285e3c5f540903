"""Lead, session 29 (issue 10): EXL133 through a rebinding of the tensor by a submodule or a
helper of the project. Built from a held-out zoo miss (timm csatv2's DCT stem, csatv2.py:287:
`b, c, h, w = x.shape; x = self._denormalize(x); x = self._rgb_to_ycbcr(x);
x = x.reshape(b, c, h // self.k, self.k, w // self.k, self.k)`), so not held out itself.
Measured with torch 2.13 (bench/labels/probes_lead29/probe_view_split_rebound.py, output next to
it): strict and non-strict torch.export fail "Constraints violated (height, width)" with H/W declared.
"""

from __future__ import annotations

from conftest import line_of, lint

THROUGH = """
import torch
from torch import nn


class Stem(nn.Module):
    def __init__(self, k=4):
        super().__init__()
        self.k = k
        self.norm = nn.BatchNorm2d(3)

    def _scale(self, x):
        return x * 2.0 - 1.0

    def forward(self, x):
        b, c, h, w = x.shape
        x = self._scale(x)
        x = self.norm(x)
        x = x.reshape(b, c, h // self.k, self.k, w // self.k, self.k)  # SPLIT
        return x.permute(0, 2, 4, 1, 3, 5)
"""


def _f(src):
    return lint(src, codes=["EXL133"])


def test_split_after_the_tensor_went_through_a_method_and_a_submodule_is_reported():
    (f,) = _f(THROUGH)
    assert f.line == line_of(THROUGH, "# SPLIT")
    assert f.severity.value == "warning"  # library code: no export call declares the dims
    assert set(f.exporters) == {"export-strict", "export-nonstrict"}


def test_split_after_a_crop_is_not_this_rules_claim():
    src = THROUGH.replace("        x = self.norm(x)\n", "        x = self.norm(x[:, :, : h // self.k * self.k])\n")
    assert _f(src) == []


def test_split_after_a_layout_op_of_the_tensor_itself_is_not_passed_through():
    # `x = x.permute(...)` / `torch.flatten(x)`: not a helper handing the tensor through
    for stmt in ("        x = x.permute(0, 1, 3, 2)\n", "        x = torch.flatten(x, 2)\n", "        x = list(x)\n"):
        src = THROUGH.replace("        x = self.norm(x)\n", stmt)
        assert _f(src) == [], stmt


def test_split_of_a_size_read_after_the_call_is_unchanged():
    src = THROUGH.replace("        b, c, h, w = x.shape\n        x = self._scale(x)\n",
                          "        x = self._scale(x)\n        b, c, h, w = x.shape\n")
    (f,) = _f(src)
    assert f.line == line_of(src, "# SPLIT")
