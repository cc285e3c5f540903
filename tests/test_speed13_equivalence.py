"""A file's syntax check takes the tree the run already parsed of the same text (stop 25,
issue 9): another file's analysis reads a callee file with ``project.file_tree`` (the stdlib
``ast``, under Python's own limits first, as ``engine._python_syntax_check`` parses), and when
that callee is linted later in the run its check is that tree instead of a second parse
(``project.checked_tree``). Checked here against the run without the shortcut
(``checked_tree`` answering None): the same findings, ``.json`` fields included, on a package
with a helper file, on one whose helper is deeper than Python accepts (EXL003 stays), on one
whose helper has a syntax error (EXL001 stays, placed by CPython), and on timm's layers where
installed."""

from __future__ import annotations

import glob
import os
import site

import pytest

from exportlint import engine
from exportlint.config import Config
from exportlint.semantics import project as project_mod

MODEL = """import torch
from torch import nn
from pkg.helpers import norm, scale


class Net(nn.Module):
    def forward(self, x):
        y = scale(x)
        return norm(y)
"""
HELPERS = """import torch


def norm(x):
    if x.sum() > 0:
        return x / x.sum()
    return x


def scale(x):
    return {body}
"""


def _package(root, body="x * 2"):
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "model.py").write_text(MODEL)
    (root / "pkg" / "helpers.py").write_text(HELPERS.replace("{body}", body))
    return sorted(str(p) for p in (root / "pkg").glob("*.py"))


def _run(files, monkeypatch, reuse: bool):
    """(findings as dicts, the paths whose syntax check took a tree of the run)."""
    taken: list[str] = []
    real = project_mod.checked_tree

    def checked_tree(project, path, text):
        got = real(project, path, text) if reuse else None
        if got is not None:
            taken.append(os.path.basename(path))
        return got

    with monkeypatch.context() as m:
        m.setattr(project_mod, "checked_tree", checked_tree)
        # (the order this shortcut serves: a caller's rules read the helper before the helper's
        # lint; with the first round's rules waiting for the callees (engine._Light) the
        # helper's check parses it and its tree stays instead: test_speed21_equivalence.py)
        m.setattr(engine, "LIGHT_FIRST_ROUND", False)
        # (texts checked in this process are not checked again: each run here starts without)
        m.setattr(engine, "_COMPILED", set())
        r = engine.lint_paths(files, Config(), jobs=1, use_cache=False, isolate=False)
    assert not r.errors, r.errors
    return [f.to_dict() for f in r.findings], taken


def test_helper_file_is_parsed_once_and_reports_the_same(tmp_path, monkeypatch):
    files = _package(tmp_path)
    parsed: list[str] = []
    real = engine._python_syntax_check

    def check(text, path):
        parsed.append(os.path.basename(path))
        return real(text, path)

    monkeypatch.setattr(engine, "_python_syntax_check", check)
    with_reuse, taken = _run(files, monkeypatch, True)
    assert taken == ["helpers.py"]  # model.py's analysis read helpers.py first
    assert "helpers.py" not in parsed and "model.py" in parsed
    parsed.clear()
    without, _ = _run(files, monkeypatch, False)
    assert "helpers.py" in parsed
    assert with_reuse == without
    assert [(os.path.basename(f["path"]), f["line"], f["code"]) for f in with_reuse] == [("helpers.py", 5, "EXL101")]


def test_helper_deeper_than_python_accepts_keeps_its_exl003(tmp_path, monkeypatch):
    # the helper's tree may come from file_tree's second try (the lint thread's raised limit),
    # which Python's own limit refuses: that tree is not a verdict, the check parses and fails
    files = _package(tmp_path, " + ".join(["x"] * 10000))
    with_reuse, taken = _run(files, monkeypatch, True)
    without, _ = _run(files, monkeypatch, False)
    assert "helpers.py" not in taken
    assert with_reuse == without
    assert any(f["code"] == "EXL003" and f["path"].endswith("helpers.py") for f in with_reuse), with_reuse


def test_helper_with_a_syntax_error_keeps_its_exl001(tmp_path, monkeypatch):
    files = _package(tmp_path, "x *")
    with_reuse, taken = _run(files, monkeypatch, True)
    without, _ = _run(files, monkeypatch, False)
    assert taken == []
    assert with_reuse == without
    assert [(os.path.basename(f["path"]), f["line"], f["code"]) for f in with_reuse
            if f["code"] == "EXL001"] == [("helpers.py", 11, "EXL001")]


def test_a_helper_edited_between_runs_is_checked_afresh(tmp_path, monkeypatch):
    # the trees are the run's: a second run in this process sees the new text (a syntax error)
    files = _package(tmp_path)
    first, _ = _run(files, monkeypatch, True)
    (tmp_path / "pkg" / "helpers.py").write_text(HELPERS.replace("{body}", "x *"))
    second, _ = _run(files, monkeypatch, True)
    assert not any(f["code"] == "EXL001" for f in first)
    assert any(f["code"] == "EXL001" and f["path"].endswith("helpers.py") for f in second)


def test_timm_layers_same_findings_with_and_without_reuse(monkeypatch):
    sp = site.getsitepackages()[0]
    files = sorted(glob.glob(os.path.join(sp, "timm/layers/*.py")))
    if not files:
        pytest.skip("timm is not installed")
    with_reuse, taken = _run(files, monkeypatch, True)
    without, _ = _run(files, monkeypatch, False)
    assert taken  # the shortcut is taken on real code
    assert with_reuse == without
