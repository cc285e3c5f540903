"""bench/cases: the held-out-style development set and its scorer (no torch needed here)."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import load_file_module

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "bench" / "cases"


def _scoreboard():
    return load_file_module("cases_scoreboard", ROOT / "bench" / "cases_scoreboard.py")


def _case_files():
    return sorted(p for p in CASES.glob("*.py") if p.name != "__init__.py")


def test_every_case_cites_an_issue_and_imports_only_torch():
    files = _case_files()
    assert len(files) >= 15
    # numpy only where the issue is about numpy in forward; functools where it is about lru_cache
    allowed = {"torch", "math", "numpy", "functools"}
    for p in files:
        tree = ast.parse(p.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree) or ""
        assert "https://github.com/" in doc, f"{p.name}: the docstring names no issue"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [(node.module or "").split(".")[0]]
            else:
                continue
            assert set(mods) <= allowed, f"{p.name} imports {mods}"
        names = {t.id for st in tree.body if isinstance(st, ast.Assign) for t in st.targets if isinstance(t, ast.Name)}
        assert "example_args" in names, p.name


def test_every_case_is_an_exportdb_style_target_and_has_a_class():
    from exportlint.confirm.targets import is_exportdb_module

    sb = _scoreboard()
    for p in _case_files():
        assert is_exportdb_module(p), p.name
        assert p.stem in sb.CLASSES, f"{p.stem}: add its hazard class to CLASSES"


def test_opset_is_read_statically(tmp_path):
    sb = _scoreboard()
    f = tmp_path / "m.py"
    f.write_text("import torch\nopset_version = 15\nexample_args = ()\n", encoding="utf-8")
    assert sb.case_opset(f) == 15
    f.write_text("example_args = ()\n", encoding="utf-8")
    assert sb.case_opset(f) is None


def test_static_score_counts_hits_misses_and_false_errors():
    sb = _scoreboard()
    truth = {
        "a": {"exporters": {
            "export-strict": {"status": "fail", "line": 10},
            "export-nonstrict": {"status": "fail", "line": 10},
            "onnx-dynamo": {"status": "pass"},
            "onnx-legacy": {"status": "diverged", "lines": [20, 30]},
        }},
    }
    findings = [
        # within one line of the strict failure; names dynamo, which passed: one false pair
        {"stem": "a", "code": "EXL101", "severity": "error", "line": 11,
         "exporters": ["export-strict", "onnx-dynamo"], "message": "m"},
        # a warning on a diverging line: counts for recall, not for error precision
        {"stem": "a", "code": "EXL111", "severity": "warning", "line": 30, "exporters": ["onnx-legacy"],
         "message": "m"},
    ]
    s = sb.score_static(truth, findings)
    assert s["units"] == 3
    assert s["found"] == 2 and s["found_error"] == 1
    assert [(m["case"], m["exporter"]) for m in s["misses"]] == [("a", "export-nonstrict")]
    assert s["error_pairs_true"] == 1 and s["error_pairs_false"] == 1
    assert s["error_precision"] == 0.5


def test_confirm_score_uses_per_exporter_verdicts():
    sb = _scoreboard()
    truth = {"a": {"exporters": {
        "export-strict": {"status": "fail", "line": 10},
        "export-nonstrict": {"status": "pass"},
        "onnx-dynamo": {"status": "fail", "line": 0},
        "onnx-legacy": {"status": "pass"},
    }}}
    findings = [
        {"stem": "a", "code": "EXL101", "severity": "error", "line": 10, "verdict": "confirmed", "message": "m",
         "exporters": ["export-strict", "export-nonstrict"],
         "details": {"confirm": {"exporters": {"export-strict": "confirmed", "export-nonstrict": "refuted"}}}},
        {"stem": "a", "code": "EXL901", "severity": "error", "line": 3, "message": "m",
         "exporters": ["onnx-legacy"]},
    ]
    s = sb.score_confirm(truth, findings)
    assert s["units"] == 1 and s["found"] == 1  # dynamo's failure has no line: not scored
    assert s["pairs_true"] == 1 and s["pairs_false"] == 1  # EXL901 claims legacy, which passed
    assert [u[:2] for u in s["unlocated"]] == [("a", "onnx-dynamo")]
