"""Classes fixed from the held-out batch 15 of multi-file real-issue cases (issue 10), on the
case-package branch cases15 (bench/data/cases_batch15.md).

Measured with torch 2.13 (bench/data/cases_truth.json; one-file probes in
bench/labels/probes_cases15/, quoted in the rule pages):

- EXL145: ``t.data_ptr()`` of a tensor on the export path fails non-strict torch.export; strict
  and onnx-dynamo fail too when the pointer is computed with or read through the storage; under
  ``if not torch.compiler.is_compiling():`` all four pass.

The reproducers fail on main 741cbe9 (no such rule there); the controls are silent on both.
"""

from __future__ import annotations

from conftest import code_hits as _hits
from conftest import lint_package as _lint
from conftest import write_package

_ALL3 = ("export-strict", "export-nonstrict", "onnx-dynamo")

# ---- EXL145: data_ptr() on the export path ---------------------------------------------------

_ALIGN = """def aligned(x, alignment=16):
{body}
    return x
"""

_MODEL = """import torch.nn as nn

from .align import aligned


class Proj(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        return self.proj(aligned(x)).relu()
"""


def _ptr(tmp_path, body):
    return write_package(tmp_path, {"align.py": _ALIGN.format(body=body), "model.py": _MODEL}, "app15")


def test_data_ptr_alignment_check_in_a_helper_of_another_file_is_reported(tmp_path):
    body = "    if x.data_ptr() % alignment != 0:\n        x = x.clone()"
    assert _hits(_lint(_ptr(tmp_path, body)), "EXL145") == [("align.py", 2, "error", _ALL3)]


def test_storage_data_ptr_is_reported_for_strict_too(tmp_path):
    body = "    key = x.untyped_storage().data_ptr()\n    x = x.clone() if key else x"
    assert _hits(_lint(_ptr(tmp_path, body)), "EXL145") == [("align.py", 2, "error", _ALL3)]


def test_unused_data_ptr_names_only_nonstrict(tmp_path):
    body = "    key = x.data_ptr()"
    assert _hits(_lint(_ptr(tmp_path, body)), "EXL145") == [("align.py", 2, "error", ("export-nonstrict",))]


def test_data_ptr_skipped_while_compiling_is_silent(tmp_path):
    body = ("    import torch\n    if not torch.compiler.is_compiling() and x.data_ptr() % alignment:\n"
            "        x = x.clone()")
    assert _hits(_lint(_ptr(tmp_path, body)), "EXL145") == []


def test_data_ptr_of_a_value_not_known_to_be_a_tensor_is_silent(tmp_path):
    files = write_package(tmp_path, {"model.py": """import torch.nn as nn


class Proj(nn.Module):
    def __init__(self, buf):
        super().__init__()
        self.buf = buf

    def forward(self, x):
        if self.buf.data_ptr() % 16:
            return x
        return x * 2
"""}, "app15b")
    assert _hits(_lint(files), "EXL145") == []
