"""Issue 10 (branch zoo10): failing-line classes of the zoo scoreboard's misses, one reproducer
each with its controls. Exporter behaviour measured with torch 2.13.0 (bench/labels/probes_zoo10/)."""

from __future__ import annotations

import textwrap

from conftest import line_of, lint

from exportlint import engine
from exportlint.config import Config
from exportlint.engine import lint_paths
from exportlint.semantics import reduce as reduce_mod

# A custom op the file defines (call form of torch.library.custom_op, a fake kernel registered),
# called in a helper that only a function table reaches, and a class decorator that swaps in a
# forward dispatching through the table (transformers' integrations/moe.py shape). Measured
# (probes_zoo10/probe_customop.py): both torch.export modes pass, onnx-dynamo fails
# (ConversionError ... DispatchError: No ONNX function found for <OpOverload(op='mylib.fb', ...)>),
# onnx-legacy fails (UnsupportedOperatorError: ... unrecognized namespace mylib::fb).
REGISTRY = """
import torch


def _fallback(input: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return input @ weight


def _fake(input, weight):
    return input.new_empty(input.shape[0], weight.shape[-1])


def _fallback_backward(ctx, grad):
    return torch.ops.mylib.fb(grad, ctx.weight.t()), None  # BACKWARD


torch.library.custom_op("mylib::fb", _fallback, mutates_args=())
torch.library.register_fake("mylib::fb", _fake)
torch.library.register_autograd("mylib::fb", _fallback_backward)


def _mm(input, weight):
    return torch.ops.mylib.fb(input, weight)  # CALL


def _other(x):
    return torch.ops.aten.relu(x) + torch.ops.otherlib.op(x)  # NOT-DEFINED-HERE


def experts_forward(self, x):
    return _mm(x, self.w) + _other(x)


class Interface:
    _global_mapping = {"mm": experts_forward}

    def get(self, key, default):
        return self._global_mapping.get(key, default)


ALL = Interface()


def use_impl(cls):
    orig = cls.forward

    def forward(self, *args, **kwargs):
        return ALL.get(self.impl, orig)(self, *args, **kwargs)

    cls.forward = forward
    return cls


@use_impl
class Experts(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 4))
        self.impl = "mm"

    def forward(self, x):
        return x @ self.w
"""


def _at(src, marker):
    ln = line_of(src, marker)
    return [f for f in lint(src) if f.line == ln and f.code == "EXL403"]


def test_custom_op_called_where_no_entry_reaches_is_a_warning_naming_the_onnx_exporters():
    (f,) = _at(REGISTRY, "# CALL")
    assert f.severity.value == "warning"
    assert f.exporters == ("onnx-dynamo", "onnx-legacy")  # a fake kernel is registered: torch.export passes
    assert "mylib::fb" in f.message and "`_mm` is not reached" in f.message


def test_kernels_and_ops_of_other_namespaces_stay_silent():
    assert _at(REGISTRY, "# BACKWARD") == []  # handed to torch.library: runs inside the op
    assert _at(REGISTRY, "# NOT-DEFINED-HERE") == []  # aten, and a namespace this file does not define


def test_registered_translations_silence_it():
    src = REGISTRY + textwrap.dedent("""
    def fb_symbolic(g, x, w):
        return g.op("MatMul", x, w)


    torch.onnx.register_custom_op_symbolic("mylib::fb", fb_symbolic, 17)
    table = {torch.ops.mylib.fb.default: None}
    torch.onnx.export(Experts(), (torch.randn(2, 4),), "m.onnx", custom_translation_table=table)
    """)
    assert _at(src, "# CALL") == []


def test_without_fake_kernel_torch_export_is_named_too():
    src = REGISTRY.replace('torch.library.register_fake("mylib::fb", _fake)\n', "")
    (f,) = _at(src, "# CALL")
    assert f.exporters == ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


# the table filled by a registering decorator: no kept code names the helper, so only the
# reduction's keep of a custom-op file's `torch.ops.` callers leaves its body to the rule
DECORATOR_REGISTRY = REGISTRY.replace(
    "def experts_forward(self, x):", "@ALL_REGISTER('mm')\ndef experts_forward(self, x):").replace(
    '_global_mapping = {"mm": experts_forward}', "_global_mapping = {}")


def test_forced_reduction_keeps_the_unreached_caller(tmp_path, monkeypatch):
    assert DECORATOR_REGISTRY != REGISTRY and "{}" in DECORATOR_REGISTRY
    p = tmp_path / "moe_like.py"
    p.write_text(textwrap.dedent(DECORATOR_REGISTRY), encoding="utf-8")
    got = []
    for fraction in (2.0, 0.0):  # never reduce / reduce whatever can go
        monkeypatch.setattr(reduce_mod, "_MIN_SAVED_FRACTION", fraction)
        for name in ("_REDUCED", "_MODULES"):
            cache = getattr(engine, name, None)
            if isinstance(cache, dict):
                cache.clear()
        r = lint_paths([str(p)], Config(), jobs=1, use_cache=False)
        got.append(sorted((f.line, f.code, f.message) for f in r.findings))
    assert got[0] == got[1] and any(c == "EXL403" for _, c, _ in got[0])


# A data test behind a dtype test (transformers' fp16 clamp, held-out bart: modeling_bart.py:304
# ran in passing onnx-dynamo and legacy exports). Measured (probes_zoo10/probe_dtype_gate.py):
# float32 exports pass with all four; a float16 model fails torch.export (strict: Unsupported:
# Data-dependent branching; non-strict: GuardOnDataDependentSymNode ... Eq(u0, 1)) and onnx-dynamo.
DTYPE_GATE = """
import torch


class M(torch.nn.Module):
    def forward(self, h):
        if h.dtype == torch.float16 and not torch.isfinite(h).all():  # FP16-GATE
            h = torch.clamp(h, min=-1, max=1)
        if h.dtype in (torch.float16, torch.bfloat16) and h.sum() > 0:  # HALF-GATE
            h = h + 1
        if h.dtype == torch.float32 and h.sum() > 0:  # FP32-GATE
            h = h + 2
        if h.sum() > 0 and h.dtype == torch.float16:  # DATA-FIRST
            h = h + 3
        if h.dtype != torch.float16 and h.sum() > 0:  # NOT-FP16
            h = h + 4
        return h
"""


def _exl101(src, marker):
    ln = line_of(src, marker)
    return [f for f in lint(src) if f.line == ln and f.code == "EXL101"]


def test_data_test_behind_a_non_default_dtype_test_is_a_warning():
    for marker in ("# FP16-GATE", "# HALF-GATE"):
        (f,) = _exl101(DTYPE_GATE, marker)
        assert f.severity.value == "warning", marker
        assert f.exporters == ("export-strict", "export-nonstrict", "onnx-dynamo")
        assert "only when" in f.message


def test_gates_true_in_a_float32_export_or_after_the_data_test_stay_errors():
    for marker in ("# FP32-GATE", "# DATA-FIRST", "# NOT-FP16"):
        (f,) = _exl101(DTYPE_GATE, marker)
        assert f.severity.value == "error", marker


def test_meta_kernel_decorator_still_counts_as_a_fake_kernel():
    # `@torch.library.impl("ns::op", "Meta")` registers a fake kernel: torch.export is not named
    src = """
    import torch


    @torch.library.custom_op("mylib::scale2", mutates_args=())
    def scale2(x: torch.Tensor) -> torch.Tensor:
        return x * 2


    @torch.library.impl("mylib::scale2", "Meta")
    def _scale2_meta(x):
        return torch.empty_like(x)


    class Model(torch.nn.Module):
        def forward(self, x):
            return scale2(x)  # CALL
    """
    (f,) = _at(src, "# CALL")
    assert f.exporters == ("onnx-dynamo", "onnx-legacy")


def test_fake_kernel_in_another_file_of_the_package_keeps_torch_export_out(tmp_path):
    # the op's fake kernel registered in a sibling file (where projects keep their registrations):
    # torch.export traces the op, only the ONNX exporters are named, as for a reached call
    from conftest import write_package

    src = REGISTRY.replace('torch.library.register_fake("mylib::fb", _fake)\n', "")
    fakes = 'import torch\n\n\n@torch.library.register_fake("mylib::fb")\ndef _fb_fake(input, weight):\n    return input.new_empty(input.shape[0], weight.shape[-1])\n'
    files = write_package(tmp_path, {"moe.py": src, "fakes.py": fakes}, "zoo10fake")
    r = lint_paths(files, Config(), jobs=1, use_cache=False, isolate=False)
    assert not r.errors, r.errors
    moe = next(p for p in files if p.endswith("moe.py"))
    line = line_of(src, "# CALL")
    (f,) = [f for f in r.findings if f.path == moe and f.line == line and f.code == "EXL403"]
    assert f.exporters == ("onnx-dynamo", "onnx-legacy")
    # without the sibling's registration torch.export is named too (the control)
    files2 = write_package(tmp_path / "b", {"moe.py": src}, "zoo10nofake")
    r2 = lint_paths(files2, Config(), jobs=1, use_cache=False, isolate=False)
    (g,) = [f for f in r2.findings if f.path.endswith("moe.py") and f.line == line and f.code == "EXL403"]
    assert g.exporters == ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")
