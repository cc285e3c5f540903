"""--confirm puts each real failure on its line, and reports no false divergence.

The cases (tests/fixtures/confirm/cases/*.py, ExportDB-style) label the true line of each
failure with ``# confirm-expect: EXPORTERS OUTCOME`` (several groups with ``;``); an exporter
without a label must pass. They cover: a dynamic dim specialised by torch.chunk (guard
provenance), int(size / 2) and round() of a size (the producer line of the guarded value),
torch.sym_min (torch.export and legacy), an LSTM over a dynamic sequence, .item() baked by the
legacy tracer (integer-valued inputs), a legacy symbolic function that rejects its op (the op's
line, not its producer's) and registered buffers updated in place (state, not divergence).
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

from exportlint.config import Config
from exportlint.confirm.api import ExporterOutcome, TargetResult, join_findings, run_confirm
from exportlint.findings import EXPORTERS, Finding, Severity

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "fixtures" / "confirm" / "cases"
HAVE_EXPORT_STACK = all(importlib.util.find_spec(m) for m in ("torch", "onnx", "onnxruntime", "onnxscript"))
needs_torch = pytest.mark.skipif(not HAVE_EXPORT_STACK, reason="torch / onnx / onnxruntime not installed")
_LABEL = re.compile(r"#\s*confirm-expect:\s*(.+)$")


def labels(path: Path) -> dict[str, dict[int, str]]:
    out: dict[str, dict[int, str]] = {}
    for i, text in enumerate(path.read_text().splitlines(), 1):
        m = _LABEL.search(text)
        for group in (m.group(1).split(";") if m else ()):
            exps, outcome = group.split()
            for e in exps.split(","):
                out.setdefault(e, {})[i] = outcome
    return out


@pytest.mark.slow
@needs_torch
def test_every_labelled_failure_is_reported_at_its_line_and_nothing_else_fails():
    files = sorted(CASES.glob("*.py"))
    assert len(files) >= 9
    res = run_confirm(Config(root=CASES), [], paths=files, exporters=EXPORTERS)
    assert not res.errors, res.errors
    wrong = []
    for t in res.targets:
        lab = labels(Path(t.path))
        for e, o in t.outcomes.items():
            want = lab.get(e, {})
            if not want:
                if o.status != "pass":
                    wrong.append(f"{t.name} {e}: expected pass, got {o.status} {o.line} {o.message[:120]}")
                continue
            (line, outcome), = want.items()
            if o.status != outcome or o.line != line or os.path.realpath(o.path or "") != os.path.realpath(t.path):
                wrong.append(f"{t.name} {e}: expected {outcome}:{line}, got {o.status}:{o.line} ({o.how}) "
                             f"{o.message[:120]}")
    assert not wrong, "\n".join(wrong)
    by = {Path(t.path).stem: t for t in res.targets}
    # the located specialisations say how they were found
    assert by["chunk_dynamic_batch"].outcomes["export-nonstrict"].how == "guard-provenance"
    assert by["round_size"].outcomes["export-strict"].how == "guard-provenance (producer)"
    assert by["legacy_symbolic_error"].outcomes["onnx-legacy"].how == "jit-source-range"
    # EXL901 says which exporter failed, how the line was found and what to change
    e901 = [f for f in res.findings if f.code == "EXL901" and Path(f.path).stem == "int_div_reshape"]
    assert e901 and "export-nonstrict fails here (line found by guard-provenance)" in e901[0].message
    assert "To fix: this line specialises a dimension the export declares dynamic" in e901[0].message


def _finding(code, path, line, end=None, exporters=EXPORTERS):
    return Finding(code=code, severity=Severity.ERROR, path=str(path), line=line, column=1,
                   end_line=end or line, end_column=2, message=code, exporters=tuple(exporters))


def test_join_confirms_the_finding_of_the_failing_statement_only(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("def forward(x):\n"          # 1
                   "    y = x + 1\n"             # 2
                   "    return cond(\n"          # 3
                   "        x.shape[0] > 5,\n"   # 4
                   "        f,\n"                # 5
                   "        g,\n"                # 6
                   "        [torch.tensor(1)],\n"  # 7
                   "    )\n")                    # 8
    p = str(src.resolve())
    on_line = _finding("EXL401", src, 3)
    far_in_stmt = _finding("EXL302", src, 7)       # same statement, 4 lines away: not this failure
    style = _finding("EXL501", src, 3)             # not an export rule: never confirmed by a failure
    other_exporter = _finding("EXL101", src, 2, exporters=("export-strict",))
    near = _finding("EXL111", src, 4)              # the hit at 3 is one line away, same statement
    tr = TargetResult(name="t", spec="t", path=p, line=1,
                      outcomes={"onnx-legacy": ExporterOutcome("onnx-legacy", status="fail", path=p, line=3,
                                                               stack=[(p, 3)], message="RuntimeError: x",
                                                               how="traceback")})
    tr.coverage = {p: {1, 2, 3, 4, 5, 6, 7}}
    tr.loaded_files = {p}
    out = join_findings(Config(root=tmp_path), [on_line, far_in_stmt, style, other_exporter, near], [tr],
                        ("onnx-legacy",))
    assert on_line.verdict == "confirmed"
    assert far_in_stmt.verdict != "confirmed" and style.verdict != "confirmed"
    assert near.verdict != "confirmed"  # an exact line wins over a neighbour
    assert not [f for f in out if f.code == "EXL901"]  # explained by EXL401
    # a hit one line from a finding in the same statement, no exact finding: confirmed
    near2 = _finding("EXL111", src, 4)
    tr.outcomes["onnx-legacy"].line, tr.outcomes["onnx-legacy"].stack = 5, [(p, 5)]
    out = join_findings(Config(root=tmp_path), [near2], [tr], ("onnx-legacy",))
    assert near2.verdict == "confirmed" and not [f for f in out if f.code == "EXL901"]
    # a failure on an exporter the finding does not name: EXL901, which says how to fix it
    tr.outcomes["onnx-legacy"].line, tr.outcomes["onnx-legacy"].stack = 2, [(p, 2)]
    out = join_findings(Config(root=tmp_path), [other_exporter], [tr], ("onnx-legacy",))
    e901 = [f for f in out if f.code == "EXL901"]
    assert other_exporter.verdict != "confirmed" and len(e901) == 1 and e901[0].line == 2
    assert e901[0].message.startswith("onnx-legacy fails here (line found by traceback): RuntimeError: x. To fix:")
