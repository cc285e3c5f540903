"""Every rule has a page with the fixed sections, and the page's examples are its tests:
each bad example yields exactly the marked (line, code) findings, each good example none."""

import re

import pytest

from exportlint.checks.base import all_rules
from exportlint.config import Config
from exportlint.engine import lint_source
from exportlint.ruledocs import SECTIONS, load_doc, rules_dir

RULES = all_rules()
_EXPECT = re.compile(r"#\s*expect:\s*((?:EXL\d{3}[\s,]*)+)")


def _markers(src: str) -> list[tuple[int, str]]:
    out = []
    for i, line in enumerate(src.splitlines(), 1):
        m = _EXPECT.search(line)
        if m:
            out.extend((i, c) for c in re.findall(r"EXL\d{3}", m.group(1)))
    return sorted(out)


def _findings(src: str) -> list[tuple[int, str]]:
    # examples are judged with every exporter targeted and every rule on
    return sorted((f.line, f.code) for f in lint_source(src, "example.py", Config()))


def test_codes_are_unique_and_well_formed():
    names = [cls.name for cls in RULES.values()]
    assert len(names) == len(set(names)), "two rules share a name"
    for code, cls in RULES.items():
        assert cls.code == code


def test_every_page_belongs_to_a_rule():
    d = rules_dir()
    assert d is not None
    pages = {p.stem for p in d.glob("EXL*.md")}
    assert pages - set(RULES) == set(), f"pages without a rule: {pages - set(RULES)}"


def test_the_rules_index_lists_every_rule():
    # rules/README.md is the index users read: a rule added without its row is hidden there
    index = (rules_dir() / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| \[(EXL\d{3})\]\(EXL\d{3}\.md\)", index, flags=re.M))
    assert set(RULES) - listed == set(), f"rules missing from rules/README.md: {sorted(set(RULES) - listed)}"


@pytest.mark.parametrize("code", sorted(RULES))
def test_page_has_all_sections(code):
    doc = load_doc(code)
    assert doc is not None, f"rules/{code}.md is missing"
    assert doc.title.startswith(f"{code}: {RULES[code].name}"), doc.title
    missing = [s for s in SECTIONS if not doc.sections.get(s, "").strip()]
    assert not missing, f"{code}: missing sections {missing}"


def _examples():
    for code in sorted(RULES):
        doc = load_doc(code)
        if doc is None or RULES[code].scope == "engine" and code.startswith("EXL9"):
            continue
        for i, src in enumerate(doc.bad_examples):
            yield pytest.param(code, "bad", src, id=f"{code}-bad{i}")
        for i, src in enumerate(doc.good_examples):
            yield pytest.param(code, "good", src, id=f"{code}-good{i}")


@pytest.mark.parametrize("code,which,src", list(_examples()))
def test_examples_behave_as_labelled(code, which, src):
    got = _findings(src)
    if which == "good":
        assert got == [], f"{code} good example yields {got}"
    else:
        want = _markers(src)
        if code in ("EXL001", "EXL002"):
            # engine rules: the marker names the line; EXL001 for a syntax error may be reported
            # where the parser notices it
            assert [c for _, c in got] == [c for _, c in want], got
        else:
            assert want, f"{code} bad example has no `# expect:` marker"
            assert any(c == code for _, c in want), f"{code} bad example marks no {code}"
            assert got == want, f"{code} bad example: findings {got} != markers {want}"


def test_rule_command_prints_the_page(capsys):
    from exportlint.cli import main

    assert main(["rule", "EXL101"]) == 0
    out = capsys.readouterr().out
    for s in SECTIONS:
        assert f"## {s}" in out


@pytest.mark.parametrize("code", sorted(c for c in RULES if not c.startswith("EXL0")))
def test_page_header_matches_rule_metadata(code):
    # the page's Severity/Exporters lines are what users read; they must say what the rule does
    text = load_doc(code).text
    sev = re.search(r"^Severity:\s*(\w+)", text, re.M)
    exps = re.search(r"^Exporters:\s*(.+)$", text, re.M)
    assert sev and exps, f"{code}: page lacks the Severity:/Exporters: header"
    cls = RULES[code]
    assert sev.group(1) == cls.severity.value, f"{code}: page says {sev.group(1)}, rule says {cls.severity.value}"
    listed = set(re.findall(r"(export-strict|export-nonstrict|onnx-dynamo|onnx-legacy)", exps.group(1)))
    assert listed == set(cls.exporters), f"{code}: page lists {sorted(listed)}, rule breaks {sorted(cls.exporters)}"
