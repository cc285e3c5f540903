"""Classes fixed from the held-out batch 10 of multi-file real-issue cases (issue 10).

Measured with torch 2.13 (bench/data/cases_truth.json):

- ``pkg_library_impl_no_meta``: an operator defined with a ``torch.library.Library`` fragment
  (``define`` + a CPU ``impl``, no fake / Meta kernel) in another file and called as
  ``torch.ops.<ns>.<op>``: strict and non-strict torch.export fail at the call ("no fake impl
  or Meta kernel registered"), as both ONNX exporters do. EXL403 named only the ONNX exporters:
  a ``torch.ops`` call was never resolved to the project file that defines the op.
"""

from __future__ import annotations

from pathlib import Path

from conftest import write_package

from exportlint.config import Config
from exportlint.engine import lint_paths


def _pkg(tmp_path: Path, files: dict[str, str]) -> list[str]:
    return write_package(tmp_path, files, "app10")


def _lint(files):
    r = lint_paths(files, Config(), jobs=1, use_cache=False, isolate=False)
    assert not r.errors, r.errors
    return [f for f in r.findings]


_LAYER = """import torch
import torch.nn as nn


class Layer(nn.Module):
    def forward(self, x):
        return torch.ops.{ns}.gated_act(x)
"""


def _ops(ns: str, extra: str = "") -> str:
    return (
        "import torch\n\n"
        f'_lib = torch.library.Library("{ns}", "DEF")\n'
        '_lib.define("gated_act(Tensor x) -> Tensor")\n\n\n'
        "def _cpu(x):\n"
        "    return x.sigmoid() * x\n\n\n"
        '_lib.impl("gated_act", _cpu, "CPU")\n' + extra)


def _exl403(findings):
    return [(Path(f.path).name, f.line, tuple(f.exporters)) for f in findings if f.code == "EXL403"]


def test_torch_ops_call_of_a_library_op_without_fake_kernel_breaks_torch_export(tmp_path):
    files = _pkg(tmp_path, {"csrc/__init__.py": "from . import ops\n", "csrc/ops.py": _ops("t10a"),
                            "layer.py": _LAYER.format(ns="t10a")})
    got = _exl403(_lint(files))
    assert got == [("layer.py", 7, ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"))]


def test_torch_ops_call_of_a_library_op_with_a_meta_kernel_keeps_torch_export(tmp_path):
    meta = "\n\ndef _meta(x):\n    return torch.empty_like(x)\n\n\n_lib.impl(\"gated_act\", _meta, \"Meta\")\n"
    files = _pkg(tmp_path, {"csrc/__init__.py": "from . import ops\n", "csrc/ops.py": _ops("t10b", meta),
                            "layer.py": _LAYER.format(ns="t10b")})
    assert _exl403(_lint(files)) == [("layer.py", 7, ("onnx-dynamo", "onnx-legacy"))]


def test_torch_ops_call_of_a_custom_op_with_register_fake_elsewhere_keeps_torch_export(tmp_path):
    files = _pkg(tmp_path, {
        "kernels.py": ('import torch\n\n\n@torch.library.custom_op("t10c::scale", mutates_args=())\n'
                       "def scale(x: torch.Tensor) -> torch.Tensor:\n    return x * 2\n"),
        "fake.py": ('import torch\n\n\n@torch.library.register_fake("t10c::scale")\n'
                    "def _(x):\n    return torch.empty_like(x)\n"),
        "layer.py": _LAYER.replace("gated_act", "scale").format(ns="t10c"),
    })
    assert _exl403(_lint(files)) == [("layer.py", 7, ("onnx-dynamo", "onnx-legacy"))]


def test_torch_ops_call_of_an_op_no_project_file_defines_stays_unknown_for_torch_export(tmp_path):
    files = _pkg(tmp_path, {"layer.py": _LAYER.format(ns="t10d")})
    assert _exl403(_lint(files)) == [("layer.py", 7, ("onnx-dynamo", "onnx-legacy"))]
