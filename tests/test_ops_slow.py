"""Slow checks for the op-support table: they run the real exporters (need torch).

- each curated equivalent of EXL401 gives the original's numbers and exports with every
  exporter the original fails;
- the rule pages' examples behave as labelled with the real exporters;
- `exportlint ops generate --quick` works and is byte-for-byte reproducible.
"""

from __future__ import annotations

import io
import json
import logging
import re
import sys
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxscript")

from exportlint.checks.ops import EQUIVALENTS  # noqa: E402
from exportlint.config import Config  # noqa: E402
from exportlint.engine import lint_source  # noqa: E402
from exportlint.ops import table as optable  # noqa: E402

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent
EXPORTERS = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")


def export(exporter, m, args, opset=None, **kw):
    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    torch.manual_seed(0)
    if exporter == "export-strict":
        return torch.export.export(m, args, strict=True)
    if exporter == "export-nonstrict":
        return torch.export.export(m, args, strict=False)
    if exporter == "onnx-dynamo":
        return torch.onnx.export(m, args, dynamo=True, opset_version=opset, verbose=False, **kw)
    buf = io.BytesIO()
    torch.onnx.export(m, args, buf, dynamo=False, opset_version=opset)
    return buf


def outcome(m, args, **kw) -> dict[str, str | None]:
    out = {}
    for ex in EXPORTERS:
        try:
            export(ex, m, args, **(kw if ex == "onnx-dynamo" else {}))
            out[ex] = None
        except Exception as e:  # noqa: BLE001
            out[ex] = f"{type(e).__name__}: {str(e)[:200]}"
    return out


class Fn(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *a):
        return self.f(*a)


def _spd():
    return (torch.randn(4, 4) + 4 * torch.eye(4),)


# api -> (original, equivalent, inputs, compare numbers?)
EQUIV_CASES = {
    "torch.cdist": (lambda x, y: torch.cdist(x, y),
                    lambda x, y: torch.linalg.vector_norm(x.unsqueeze(-2) - y.unsqueeze(-3), dim=-1),
                    lambda: (torch.randn(5, 3), torch.randn(4, 3)), True),
    "torch.masked_select": (lambda x, m: torch.masked_select(x, m), lambda x, m: x[m],
                            lambda: (torch.randn(6), torch.tensor([1, 0, 1, 1, 0, 1], dtype=torch.bool)), True),
    "torch.searchsorted": (lambda s, v: torch.searchsorted(s, v), lambda s, v: torch.bucketize(v, s),
                           lambda: (torch.arange(8.0), torch.rand(5) * 8), True),
    "torch.kthvalue": (lambda x: torch.kthvalue(x, 2, dim=-1).values,
                       lambda x: torch.topk(x, 2, dim=-1, largest=False).values.select(-1, -1),
                       lambda: (torch.randn(3, 5),), True),
    "torch.median": (lambda x: torch.median(x, dim=-1).values,
                     lambda x: x.sort(-1).values.select(-1, (x.size(-1) - 1) // 2),
                     lambda: (torch.randn(3, 6),), True),
    "torch.isin": (lambda a, b: torch.isin(a, b), lambda a, b: (a.unsqueeze(-1) == b.flatten()).any(-1),
                   lambda: (torch.tensor([1, 2, 3, 4, 2]), torch.tensor([2, 4])), True),
    "torch.diff": (lambda x: torch.diff(x), lambda x: x[..., 1:] - x[..., :-1], lambda: (torch.randn(3, 6),), True),
    "torch.nn.functional.interpolate": (
        lambda x: torch.nn.functional.interpolate(x, scale_factor=0.5, mode="bilinear", antialias=True),
        lambda x: torch.nn.functional.interpolate(x, scale_factor=0.5, mode="bilinear", antialias=False),
        lambda: (torch.randn(1, 2, 8, 8),), False),
    "torch.multinomial": (
        lambda p: torch.multinomial(p, 3),
        lambda p: torch.topk(torch.log(p) - torch.log(-torch.log(torch.rand_like(p))), 3).indices,
        lambda: (torch.rand(2, 6) + 0.1,), False),
}


def test_every_equivalent_has_a_case():
    live = {k for k, v in EQUIVALENTS.items() if not v[0].startswith("none")}
    assert live <= set(EQUIV_CASES)


@pytest.mark.parametrize("api", sorted(EQUIV_CASES))
def test_equivalent_exports(api):
    orig, repl, make, compare = EQUIV_CASES[api]
    torch.manual_seed(0)
    args = make()
    m_orig, m_repl = Fn(orig).eval(), Fn(repl).eval()
    if compare:
        a, b = m_orig(*args), m_repl(*args)
        assert torch.allclose(a.float(), b.float(), atol=1e-5), api
    else:
        assert m_orig(*args).shape == m_repl(*args).shape
    before = outcome(m_orig, args)
    after = outcome(m_repl, args)
    failed = [e for e, v in before.items() if v]
    # the table says it fails somewhere; the equivalent must export with all four
    tb = optable.load()
    hit = tb.lookup(api)
    assert hit is not None, api
    assert all(v is None for v in after.values()), after
    if api not in ("torch.multinomial",):  # multinomial fails legacy only without replacement
        assert failed, f"{api}: the original exported everywhere; the equivalent is pointless"


def _blocks(text, section):
    body = text.split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```python\n(.*?)^```", body, re.S | re.M)


_RUNNER = r"""
import io, json, sys, warnings, logging, importlib.util
warnings.simplefilter("ignore"); logging.disable(logging.CRITICAL)
import torch
path, opsets = sys.argv[1], json.loads(sys.argv[2])
spec = importlib.util.spec_from_file_location("example", path)
mod = importlib.util.module_from_spec(spec); sys.modules["example"] = mod; spec.loader.exec_module(mod)
m = mod.Model().eval(); args = mod.example_args
table = getattr(mod, "custom_translation_table", None)
out = {}
for ex in ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"):
    opset = opsets.get(ex)
    try:
        torch.manual_seed(0)
        if ex == "export-strict": torch.export.export(m, args, strict=True)
        elif ex == "export-nonstrict": torch.export.export(m, args, strict=False)
        elif ex == "onnx-dynamo":
            kw = {"custom_translation_table": table} if table else {}
            p = torch.onnx.export(m, args, dynamo=True, opset_version=opset, verbose=False, **kw)
            got = [o.version for o in p.model_proto.opset_import if o.domain == ""][0]
            if opset is not None and got != opset:
                raise RuntimeError(f"asked for opset {opset}, the file is opset {got}")
        else:
            torch.onnx.export(m, args, io.BytesIO(), dynamo=False, opset_version=opset)
        out[ex] = None
    except Exception as e:
        out[ex] = (type(e).__name__ + ": " + str(e))[:300]
print("@@" + json.dumps(out))
"""


def _run_example(src, tmp_path, name):
    """Export an example with the four exporters in a fresh process (examples register ops)."""
    import subprocess

    p = tmp_path / f"{name}.py"
    p.write_text(src)
    runner = tmp_path / "runner.py"
    runner.write_text(_RUNNER)
    opsets = {ex: _opset_of(src, ex) for ex in EXPORTERS}
    r = subprocess.run([sys.executable, str(runner), str(p), json.dumps(opsets)], capture_output=True, text=True,
                       timeout=600, cwd=tmp_path)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("@@")]
    assert lines, r.stderr[-2000:]
    return json.loads(lines[-1][2:])


def _opset_of(src, exporter):
    """The opset the example's own export call asks of this exporter (None: the default)."""
    m = re.search(r"opset_version=(\d+)", src)
    if not m:
        return None
    legacy = "dynamo=False" in src
    return int(m.group(1)) if (exporter == "onnx-legacy") == legacy else None


@pytest.mark.parametrize("code", ["EXL401", "EXL402", "EXL403"])
def test_rule_page_examples_really_export(code, tmp_path):
    """Bad examples fail with exactly the exporters the findings name; good ones export with all four."""
    text = (ROOT / "rules" / f"{code}.md").read_text()
    for i, src in enumerate(_blocks(text, "Bad example")):
        static = {e for f in lint_source(src, "ex.py", config=Config()) for e in f.exporters}
        real = _run_example(src, tmp_path, f"bad{i}")
        failing = {e for e, v in real.items() if v}
        assert failing == static, (code, i, real)
    for i, src in enumerate(_blocks(text, "Good example")):
        real = _run_example(src, tmp_path, f"good{i}")
        assert all(v is None for v in real.values()), (code, i, real)


def test_quick_generation_is_reproducible(tmp_path, monkeypatch):
    from exportlint.ops import generate

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    out = tmp_path / "ops.json"
    assert generate.main(["--quick", "--workers", "1", "--output", str(out), "--date", "2001-02-03"]) == 0
    first = out.read_bytes()
    data = json.loads(first)
    assert data["meta"]["generated"] == "2001-02-03"
    assert data["meta"]["command"] == "exportlint ops generate --quick"
    assert data["meta"]["versions"]["torch"] == torch.__version__
    apis = data["apis"]
    assert set(apis["torch.linalg.inv"]["fail"]) == {"onnx-dynamo", "onnx-legacy"}
    assert "fail" not in apis["torch.add"]
    assert set(apis["torch.cdist"]["fail"]) == {"onnx-dynamo"}
    interp = {tuple(sorted(v["when"].items())): v for v in apis["torch.nn.functional.interpolate"]["variants"]}
    aa = interp[(("antialias", True), ("mode", "bilinear"))]
    assert set(aa["fail"]) == {"onnx-legacy"}
    # (align_corners variants since the legacy exporter needs opset 11 for align_corners=True)
    assert "fail" not in interp[(("align_corners", None), ("antialias", False), ("mode", "bilinear"))]
    assert interp[(("align_corners", True), ("antialias", False), ("mode", "bilinear"))]["opset"]["onnx-legacy"] == 11
    gs = apis["torch.nn.functional.grid_sample"]["variants"][0]
    assert gs["opset"]["onnx-legacy"] == 16
    # the registries were read
    assert "aten::abs" in data["registries"]["onnx-dynamo"]["translated"]
    assert data["registries"]["onnx-legacy"]["symbolics"]["aten::grid_sampler"] == 16
    # same versions, no date given: same bytes (the recorded date is kept), and in a pool
    assert generate.main(["--quick", "--workers", "2", "--output", str(out)]) == 0
    assert out.read_bytes() == first
