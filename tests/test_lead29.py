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


# ---- EXL116 in a file a declared model reaches, with no declaration of its own -------------------
# (merge of engine18's dim flow with cases18's batch 18: bench/cases/pkg_usrnet_p2o_roll_fft, whose
# truth says all four exporters pass and match at `int(axis_size / 2)`: the helper is handed the
# input the export declares static)

from conftest import code_hits, lint_package, write_package  # noqa: E402

_UTILS = """import torch


def p2o(psf, shape):
    otf = torch.zeros(psf.shape[:-2] + shape).type_as(psf)
    for axis, axis_size in enumerate(psf.shape[2:]):
        otf = torch.roll(otf, -int(axis_size / 2), dims=axis + 2)
    return otf


def half(x):
    return x[..., : int(x.shape[-1] / 2)]
"""

_MODEL = """import torch

from .utils import half, p2o


class Data(torch.nn.Module):
    def forward(self, x, k):
        FB = p2o(k, (x.shape[2], x.shape[3]))
        return half(x) + FB.sum()
"""

_INIT = """import torch
from torch.export import Dim

from .model import Data

model = Data()
example_args = (torch.randn(1, 3, 16, 16), torch.randn(1, 3, 5, 5))
dynamic_shapes = {"x": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}, "k": None}
"""


def test_size_through_float_of_a_static_input_in_a_reached_helper_is_a_warning(tmp_path):
    f = lint_package(write_package(tmp_path, {"utils.py": _UTILS, "model.py": _MODEL, "__init__.py": _INIT}, "lead29a"))
    hits = {(n, ln): sev for n, ln, sev, _ in code_hits(f, "EXL116")}
    assert hits.get(("utils.py", 7)) == "warning"  # psf is `k`, declared static
    assert hits.get(("utils.py", 12)) == "error"  # x carries the declared H/W


def test_a_call_chain_deeper_than_the_recursion_limit_does_not_stop_the_run(tmp_path):
    # the declared dims are followed (semantics/dim_flow.py) in the parent process, before the
    # workers: a chain of 400 helpers raised RecursionError there and the whole run died
    chain = "import torch\n\n" + "\n".join(
        f"def f{i}(x):\n    return f{i + 1}(x) + 1\n" for i in range(399)) + "\ndef f399(x):\n    return x * 2\n"
    model = """import torch
from torch.export import Dim

from .helpers import f0


class M(torch.nn.Module):
    def forward(self, x):
        return f0(x)


def main():
    torch.export.export(M().eval(), (torch.randn(2, 3),), dynamic_shapes={"x": {0: Dim("b")}})
"""
    files = write_package(tmp_path, {"helpers.py": chain, "model.py": model}, "lead29b")
    assert lint_package(files) == []
