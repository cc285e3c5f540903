"""--confirm places a silent divergence that no guard, TracerWarning or flipped branch explains
at the first user line whose value differs between eager and the exported FX program."""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

from exportlint.config import Config
from exportlint.confirm.api import advice, run_confirm

HAVE_EXPORT_STACK = all(importlib.util.find_spec(m) for m in ("torch", "onnx", "onnxruntime", "onnxscript"))
needs_torch = pytest.mark.skipif(not HAVE_EXPORT_STACK, reason="torch / onnx / onnxruntime not installed")

# torch 2.13 exports round(size * 5, -1) as size * 5: no guard, no warning, other numbers at
# other sizes (measured; the "round() of a size" class of real reports)
ROUND = """\
    import torch


    class Bucketed(torch.nn.Module):
        def forward(self, x):
            y = x * 2
            z = y * round(x.shape[0] * 5, -1)
            return z + 1


    example_args = (torch.ones(14),)
    dynamic_shapes = {"x": {0: torch.export.Dim("n", min=2, max=1024)}}
"""


@pytest.mark.slow
@needs_torch
def test_divergence_without_guard_is_placed_at_the_first_line_that_differs(tmp_path):
    f = tmp_path / "bucketed.py"
    f.write_text(textwrap.dedent(ROUND))
    cfg = Config(root=tmp_path)
    cfg.confirm_timeout = 240.0
    res = run_confirm(cfg, [], paths=[f], exporters=("export-nonstrict",), fork_server=False)
    assert not res.errors, res.errors
    o = res.targets[0].outcomes["export-nonstrict"]
    assert o.status == "diverged", o
    line = next(i for i, t in enumerate(f.read_text().splitlines(), 1) if "round(" in t)
    assert o.line == line and o.how == "first-diverging-line", o
    assert any(x.code == "EXL902" and x.line == line for x in res.findings)


def test_advice_tells_binding_errors_from_python_on_traced_values():
    assert "bind the inputs" in advice("TypeError: forward() got an unexpected keyword argument 'y'")
    assert "torch equivalent" in advice("TypeError: type Tensor doesn't define __round__ method")


def test_a_divergence_placed_where_values_first_differ_never_refutes_an_earlier_finding(tmp_path):
    from exportlint.confirm.api import ExporterOutcome, TargetResult, join_findings
    from exportlint.findings import Finding, Severity

    src = tmp_path / "m.py"
    src.write_text("\n".join(f"line{i}" for i in range(1, 30)) + "\n")
    p = str(src.resolve())

    def verdict(how: str) -> str:
        f = Finding(code="EXL102", severity=Severity.ERROR, path=str(src), line=5, column=1, end_line=5,
                    end_column=2, message="value read", exporters=("export-strict",))
        tr = TargetResult(name="t", spec="t", path=p, line=1, outcomes={"export-strict": ExporterOutcome(
            "export-strict", status="diverged", divergences=[
                {"variant": "negated", "message": "values differ",
                 "location": {"path": p, "line": 9, "how": how, "stack": [[p, 9]]}}])})
        tr.coverage = {p: {5, 9}}
        tr.loaded_files = {p}
        join_findings(Config(root=tmp_path), [f], [tr], ("export-strict",))
        return f.verdict

    # the baked value shows at line 9; the constant may come from line 5: not refuted
    assert verdict("first-diverging-line") == "not-reached"
    # a TracerWarning names the line whose value became a constant: line 5 is not it
    assert verdict("TracerWarning") == "refuted"


@needs_torch
def test_an_input_where_eager_itself_is_unstable_is_no_evidence_of_divergence():
    # normalising a constant input divides rounding noise by sqrt(eps): two runtimes may
    # legitimately disagree there (seen on RAFT's instance norms with the all-zeros variant)
    import torch

    from exportlint.confirm.worker import _ill_conditioned, _Pristine, output_leaves

    class Norm(torch.nn.Module):
        def forward(self, x):
            return (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + 1e-10)

    class Scale(torch.nn.Module):
        def forward(self, x):
            return x * 3 + 1

    job = {"rtol": 1e-4, "atol": 1e-5}
    zeros = (torch.zeros(2, 16),)
    for cls, unstable in ((Norm, True), (Scale, False)):
        p = _Pristine(cls().eval())
        with torch.no_grad():
            ref = output_leaves(p.fresh()(*zeros))
        assert _ill_conditioned(p, zeros, {}, ref, job) is unstable, cls
    p = _Pristine(Norm().eval())
    x = (torch.randn(2, 16),)
    with torch.no_grad():
        ref = output_leaves(p.fresh()(*x))
    assert _ill_conditioned(p, x, {}, ref, job) is False  # a generic input: stable
