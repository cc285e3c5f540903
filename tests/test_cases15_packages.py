"""Classes fixed from the held-out batch 15 of multi-file real-issue cases (issue 10), on the
case-package branch cases15 (bench/data/cases_batch15.md).

Measured with torch 2.13 (bench/data/cases_truth.json; one-file probes in
bench/labels/probes_cases15/, quoted in the rule pages):

- EXL145: ``t.data_ptr()`` of a tensor on the export path fails non-strict torch.export; strict
  and onnx-dynamo fail too when the pointer is computed with or read through the storage; under
  ``if not torch.compiler.is_compiling():`` all four pass.

- EXL146: inputs given separate named ``Dim``s, combined by broadcasting, ``torch.cat`` (the dims
  other than the concatenated one) or matmul, fail strict and non-strict torch.export at the op
  ("Constraints violated"); one Dim object, ``Dim.DYNAMIC``, or a cat along the separate dims pass.

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


# ---- EXL146: separate named Dims tied by an op -------------------------------------------------

_DECL = """import torch
from torch.export import Dim

from .fuse import Fusion

model = Fusion()
example_args = (torch.randn(2, 3), torch.randn(2, 5), torch.randn(2, 8))
dynamic_shapes = {spec}
"""

_FUSE = """import torch
import torch.nn as nn


def combine(a, b, c):
    {body}


class Fusion(nn.Module):
    def forward(self, a, b, c):
        return combine(a, b, c).tanh()
"""

_SEP = ('{"a": {0: Dim("ba"), 1: Dim("wa")}, "b": {0: Dim("bb"), 1: Dim("wb")}, '
        '"c": {0: Dim("bc"), 1: Dim("wc", max=128)}}')
_EXPORT2 = ("export-strict", "export-nonstrict")


def _fusion(tmp_path, body, spec=_SEP):
    return write_package(tmp_path, {"__init__.py": _DECL.format(spec=spec), "fuse.py": _FUSE.format(body=body)},
                         "app15d")


def test_cat_of_inputs_with_separate_batch_dims_in_a_helper_is_reported(tmp_path):
    files = _fusion(tmp_path, "return torch.cat((a, b), dim=1) + c")
    assert _hits(_lint(files), "EXL146") == [("fuse.py", 6, "error", _EXPORT2)]


def test_cat_through_shape_keeping_methods_is_reported_slices_are_not_followed(tmp_path):
    files = _fusion(tmp_path, "gate = b.float().sigmoid()\n    return a * gate[:, :3]")
    assert _hits(_lint(files), "EXL146") == []  # a slice is not followed: unknown stays unknown
    files = _fusion(tmp_path / "x", "gate = a.float().sigmoid()\n    return gate - c[:, :3]")
    assert _hits(_lint(files), "EXL146") == []
    files = _fusion(tmp_path / "y", "g = a.float().relu()\n    return torch.cat([g, b], 1) * 2")
    assert [h[:2] for h in _hits(_lint(files), "EXL146")] == [("fuse.py", 7)]


def test_one_dim_object_for_both_inputs_is_silent(tmp_path):
    spec = ('{"a": {0: B, 1: Dim("wa")}, "b": {0: B, 1: Dim("wb")}, "c": {0: B}}')
    decl = _DECL.replace("model = Fusion()", 'B = Dim("batch")\nmodel = Fusion()')
    files = write_package(tmp_path, {"__init__.py": decl.format(spec=spec),
                                     "fuse.py": _FUSE.format(body="return torch.cat((a, b), dim=1) + c[:, :8]")},
                          "app15e")
    assert _hits(_lint(files), "EXL146") == []


def test_dim_dynamic_for_every_input_is_silent(tmp_path):
    spec = '{"a": {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}, "b": {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}, "c": {0: Dim.DYNAMIC}}'
    files = _fusion(tmp_path, "return torch.cat((a, b), dim=1) + c", spec)
    assert _hits(_lint(files), "EXL146") == []


def test_cat_along_the_separately_declared_dim_is_silent(tmp_path):
    spec = '{"a": {0: Dim("na")}, "b": {0: Dim("nb")}, "c": None}'
    files = _fusion(tmp_path, "return torch.cat((a, b[:, :3]), dim=0)", spec)
    assert _hits(_lint(files), "EXL146") == []
    files = _fusion(tmp_path / "z", "return torch.cat((a, c[:, :3]), dim=0)", spec)
    assert _hits(_lint(files), "EXL146") == []


def test_matmul_of_separately_declared_contracted_dims_is_reported(tmp_path):
    decl = """import torch
from torch.export import Dim

from .mm import Project

model = Project()
example_args = (torch.randn(2, 3), torch.randn(3, 4))
dynamic_shapes = ({1: Dim("kx")}, {0: Dim("ky")})
"""
    mm = """import torch.nn as nn


class Project(nn.Module):
    def forward(self, x, w):
        return x @ w
"""
    files = write_package(tmp_path, {"__init__.py": decl, "mm.py": mm}, "app15f")
    assert _hits(_lint(files), "EXL146") == [("mm.py", 6, "error", _EXPORT2)]


def test_a_dim_two_export_calls_name_differently_is_not_known(tmp_path):
    m = """import torch.nn as nn


class Add(nn.Module):
    def forward(self, x, y):
        return x + y
"""
    ex = """import torch
from torch.export import Dim

from .m import Add

args = (torch.randn(2, 3), torch.randn(2, 3))
torch.export.export(Add(), args, dynamic_shapes={"x": {0: Dim("b")}, "y": {0: Dim("b")}})
torch.export.export(Add(), args, dynamic_shapes={"x": {0: Dim("batch")}, "y": {0: Dim("batch")}})
"""
    assert _hits(_lint(write_package(tmp_path, {"m.py": m, "export.py": ex}, "app15g")), "EXL146") == []
