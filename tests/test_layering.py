"""The engine reaches rules only through ``checks.base`` (the registry of rules and of callee
summaries), never a rule module by name (issue 9, item 3); checks never import the engine."""

from __future__ import annotations

import ast
from pathlib import Path

from exportlint.checks.base import CALLEE_SUMMARIES, all_rules
from exportlint.semantics.kinds import DYNAMO_FAIL_RESULT, STATIC_SIZE_RESULT

PKG = Path(__file__).resolve().parent.parent / "exportlint"


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(n, ast.ImportFrom) and n.module:
            out.add(n.module)
            out.update(f"{n.module}.{a.name}" for a in n.names)
        elif isinstance(n, ast.Import):
            out.update(a.name for a in n.names)
    return out


def test_engine_imports_no_rule_module_and_checks_do_not_import_the_engine():
    rule_modules = {f"exportlint.checks.{p.stem}" for p in (PKG / "checks").glob("*.py")
                    if p.stem not in ("__init__", "base")}
    named = {m for m in _imports(PKG / "engine.py") if m.startswith("exportlint.checks")}
    assert not named & rule_modules, named & rule_modules
    assert "exportlint.checks.base" in named  # (the registry: rules and callee summaries)
    for p in (PKG / "checks").glob("*.py"):
        assert not {m for m in _imports(p) if m in ("exportlint.engine", "exportlint.engine.Linter")}, p


def test_rules_register_the_callee_summaries_the_engine_hands_between_files():
    all_rules()
    suffixes = [s for s, _ in CALLEE_SUMMARIES]
    assert STATIC_SIZE_RESULT in suffixes and DYNAMO_FAIL_RESULT in suffixes
    assert len(suffixes) == len(set(suffixes))
