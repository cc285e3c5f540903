"""Issue 10 (branch zoo17): failing-line classes of the zoo scoreboard's misses, one reproducer each
with its controls, self-contained (no timm / transformers needed). Exporter behaviour measured with
torch 2.13.0: bench/labels/probes_zoo17/ (outputs next to the probes).
"""

from __future__ import annotations

from pathlib import Path

from conftest import lint_package as _lint
from conftest import write_package


def _codes(findings, code):
    return sorted((Path(f.path).name, f.line) for f in findings if f.code == code)


# ---- EXL130 at the inner wrapper's call --------------------------------------------------------------
# probe_binder_call.py (legacy exporter, torch 2.13): `@merge_defaults @capture` on a forward with
# `use_cache=None` FAILS with "TypeError: M.forward() got multiple values for argument 'use_cache'",
# raised by capture's `func(self, *args, **kwargs)` (the traceback's last user frame; the zoo truth's
# failing line for BertModel & co. is transformers/utils/output_capturing.py:361, that call in
# `@capture_outputs`). The decorator file has no forward: it is linted for its wrapper.
_DECOS = '''from functools import wraps


def merge_defaults(func):
    @wraps(func)
    def wrapper(self, *args, **kwargs):
        for name in ["use_cache"]:
            idx = func.__code__.co_varnames.index(name) - 1 if name in func.__code__.co_varnames else None
            if idx is not None and len(args) > idx:
                args = list(args)
                args[idx] = args[idx] if args[idx] is not None else self.use_cache
                args = tuple(args)
            else:
                kwargs[name] = kwargs.get(name, self.use_cache)
        return func(self, *args, **kwargs)
    return wrapper


def capture(func=None, *, flag=True):
    def wrapped_fn(func):
        @wraps(func)
        def wrapper(self, *args, **kwargs):
            kwargs.pop("return_dict", None)
            try:
                out = func(self, *args, **kwargs)
            finally:
                pass
            return out
        return wrapper
    if func is not None:
        return wrapped_fn(func)
    return wrapped_fn
'''

_MODEL = '''import torch

from .decos import capture, merge_defaults


class M(torch.nn.Module):
    use_cache = False

    {decos}
    def forward(self, x, mask=None, {param}=None):
        return x * 2
'''


def _pkg(tmp_path, decos, param="use_cache"):
    return write_package(tmp_path, {"decos.py": _DECOS, "model.py": _MODEL.format(decos=decos, param=param)},
                         "zoo17wrap")


def test_exl130_reported_at_the_inner_wrappers_call_too(tmp_path):
    f = _lint(_pkg(tmp_path, "@merge_defaults\n    @capture"))
    call = _DECOS.splitlines().index("                out = func(self, *args, **kwargs)") + 1
    assert _codes(f, "EXL130") == [("decos.py", call), ("model.py", 9)]
    hit = next(x for x in f if x.code == "EXL130" and x.path.endswith("decos.py"))
    assert hit.exporters == ("onnx-legacy",)
    assert "M.forward" in hit.message and "use_cache" in hit.message and "merge_defaults" in hit.message


def test_exl130_inner_alone_is_silent_in_the_decorator_file(tmp_path):
    assert _codes(_lint(_pkg(tmp_path, "@capture")), "EXL130") == []


def test_exl130_outer_alone_is_silent_in_the_decorator_file(tmp_path):
    assert _codes(_lint(_pkg(tmp_path, "@merge_defaults")), "EXL130") == []


def test_exl130_forward_without_the_parameter_is_silent_in_the_decorator_file(tmp_path):
    assert _codes(_lint(_pkg(tmp_path, "@merge_defaults\n    @capture", param="flag")), "EXL130") == []


def test_exl130_decorator_file_alone_is_silent(tmp_path):
    files = write_package(tmp_path, {"decos.py": _DECOS}, "zoo17wrap")
    assert _codes(_lint(files), "EXL130") == []


# ---- EXL116: a size through a float inside a multi-line assignment under a tracing guard ------------------
# probe_float_size_stmt.py (torch 2.13, dynamic H/W): `new_w = (<torch ops> if torch.jit.is_tracing() else
# int(math.ceil(w / p) * p))` FAILS strict and non-strict ('Constraints violated (height, width)'); located
# (the zoo truth's guard provenance) non-strict at the `int(...)` line, strict at the statement's first line
# (it keeps the value symbolic and fails at the use; the producer is the statement). hf mobilevit: strict
# 399 (`new_width = (`), non-strict 397 (the height's `int(...)`).
from conftest import lint, line_of  # noqa: E402

_UNFOLD = """
import math
import torch

class Unfold(torch.nn.Module):
    p = 2

    def forward(self, x):
        b, c, h, w = x.shape
        new_w = (
            torch.ceil(torch.tensor(w / self.p)).long() * self.p
            if torch.jit.is_tracing()
            else int(math.ceil(w / self.p) * self.p)
        )
        return x.reshape(b * c, h, new_w // self.p, self.p)
"""


def _exl116(src):
    return sorted((f.line, tuple(f.exporters)) for f in lint(src) if f.code == "EXL116")


def test_exl116_tracing_guarded_multiline_size_reports_statement_for_strict():
    assert _exl116(_UNFOLD) == [
        (line_of(_UNFOLD, "new_w = ("), ("export-strict",)),
        (line_of(_UNFOLD, "else int("), ("export-nonstrict", "onnx-dynamo")),
    ]


def test_exl116_single_line_size_keeps_one_finding():
    src = _UNFOLD.replace("""new_w = (
            torch.ceil(torch.tensor(w / self.p)).long() * self.p
            if torch.jit.is_tracing()
            else int(math.ceil(w / self.p) * self.p)
        )""", "new_w = int(math.ceil(w / self.p) * self.p)")
    assert _exl116(src) == [(line_of(src, "new_w = int("),
                             ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"))]


def test_exl116_tracing_guard_with_a_non_size_other_side_is_silent():
    # the non-legacy side is no size (a config constant): the joined value stays unknown, nothing reported
    src = _UNFOLD.replace("else int(math.ceil(w / self.p) * self.p)", "else self.p * 8")
    assert _exl116(src) == []


def test_exl116_integer_ceiling_is_silent():
    src = _UNFOLD.replace("else int(math.ceil(w / self.p) * self.p)", "else (w + self.p - 1) // self.p * self.p")
    assert _exl116(src) == []


def test_exl116_conversion_inside_a_multiline_call_keeps_one_finding():
    # the statement uses the size (a reshape), it does not bind it: one finding, at the conversion
    src = """
import torch

class Shuffle(torch.nn.Module):
    f = 2

    def forward(self, x):
        b, c, h, w = x.shape
        x = x.reshape(
            b,
            int(h / self.f),
            -1,
        )
        return x
"""
    assert _exl116(src) == [(line_of(src, "int(h / self.f)"),
                             ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"))]
