"""The zoo scoreboard's scoring on a synthetic truth + findings pair (no torch, no zoo)."""

import importlib.util
import sys
from pathlib import Path

_P = Path(__file__).resolve().parent.parent / "bench" / "zoo_scoreboard.py"
_spec = importlib.util.spec_from_file_location("zoo_scoreboard", _P)
zs = importlib.util.module_from_spec(_spec)
sys.modules["zoo_scoreboard"] = zs
_spec.loader.exec_module(zs)

MODELS = {
    "a": {"zoo": "z", "exporters": {
        "export-strict": {"outcome": "fail", "fail_at": ["z/m.py", 10, "traceback"], "message": "boom"},
        "export-nonstrict": {"outcome": "pass", "ran": {"z/m.py": "1-20", "z/u.py": [5]}},
        "onnx-legacy": {"outcome": "diverged", "warns": [["z/u.py", 30, "TracerWarning"]]},
        "onnx-dynamo": {"outcome": "fail", "message": "no line"},
    }},
    "b": {"zoo": "other", "exporters": {"export-strict": {"outcome": "fail", "fail_at": ["z/m.py", 50, "x"]}}},
}


def F(line, sev="error", exporters=("export-strict",), path="z/m.py", code="EXL101"):
    return {"path": path, "line": line, "severity": sev, "exporters": list(exporters), "code": code, "message": "m"}


def test_score_recall_precision_and_unjudged():
    t = zs.ZooTruth(MODELS, "z")
    assert t.outcomes["export-strict"] == {"fail": 1}
    findings = [
        F(11),                                     # within +-1 of the strict failure: found, true
        F(3, exporters=("export-nonstrict",)),     # ran in a passing non-strict export: false
        F(3, exporters=("export-strict",)),        # names strict, strict never passed: unjudged
        F(30, path="z/u.py", exporters=("onnx-legacy",)),  # warned in a diverged legacy export: true
        F(5, path="z/u.py", sev="warning", exporters=("export-nonstrict",)),  # warnings are not judged
        F(40, exporters=()),                       # no exporters = all; line not in any truth: unjudged
    ]
    r = zs.score(t, findings)
    assert r["failing_lines"] == 1 and r["recall"] == 1.0
    assert r["warn_lines"] == 1 and r["warn_recall"] == 1.0
    assert (r["errors_true"], r["errors_false"], r["errors_unjudged"]) == (2, 1, 2)
    assert r["error_precision"] == round(2 / 3, 3)
    assert r["false_errors"][0]["line"] == 3 and r["false_errors"][0]["ran_with"] == ["export-nonstrict"]
    assert r["unlocated_failures"][0]["exporter"] == "onnx-dynamo"


def test_score_miss_needs_the_named_exporter_and_the_line():
    t = zs.ZooTruth(MODELS, "z")
    r = zs.score(t, [F(12), F(10, exporters=("onnx-legacy",)), F(10, sev="info")])
    assert r["recall"] == 0.0
    assert r["misses"] == [{"exporter": "export-strict", "path": "z/m.py", "line": 10, "models": ["a"],
                            "message": "boom"}]
    assert zs._expand([[1, 3], 7]) == zs._expand("1-3,7") == {1, 2, 3, 7}
