"""The first round of a one-worker project run goes importers first, each file with the calls
the files before it found (exportlint/schedule.py): fewer analyses, the same findings."""

from __future__ import annotations

import json
from pathlib import Path

from exportlint import engine
from exportlint.config import Config
from exportlint.schedule import callers_first

FIX = Path(__file__).parent / "fixtures" / "project" / "app"


def _pkg(tmp_path: Path, files: dict[str, str]) -> dict[str, bytes]:
    out = {}
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        out[str(p)] = text.encode()
    return out


def test_importers_come_before_what_they_import(tmp_path):
    texts = _pkg(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/c.py": "def helper(x):\n    return x\n",
        "pkg/b.py": "from .c import helper\n",
        "pkg/a.py": "from pkg import b\nimport pkg.c\n",
        "pkg/d.py": "from . import (\n    c,\n)\n",
        "pkg/lone.py": "x = 1\n",
    })
    paths = sorted(texts)  # a, b, c, d, lone, __init__ order of the names
    order = callers_first(paths, texts)
    assert sorted(order) == sorted(paths)
    pos = {Path(p).name: i for i, p in enumerate(order)}
    assert pos["a.py"] < pos["b.py"] < pos["c.py"]
    assert pos["d.py"] < pos["c.py"]


def test_an_import_cycle_keeps_every_file_once(tmp_path):
    texts = _pkg(tmp_path, {
        "cyc/__init__.py": "from .x import f\n",
        "cyc/x.py": "from .y import g\ndef f():\n    pass\n",
        "cyc/y.py": "from .x import f\ndef g():\n    pass\n",
    })
    order = callers_first(sorted(texts), texts)
    assert sorted(order) == sorted(texts)
    assert Path(order[0]).name == "__init__.py"


def test_no_import_keeps_the_given_order(tmp_path):
    texts = _pkg(tmp_path, {f"m{i}.py": "x = 1\n" for i in range(5)})
    paths = sorted(texts)
    assert callers_first(paths, texts) == paths


def _run(files: list[str], jobs: int, isolate: bool, monkeypatch) -> tuple[list[str], int]:
    seen: list[str] = []
    real = engine._worker_lint

    def counting(item):
        seen.append(item[0] if isinstance(item, tuple) else item)
        return real(item)

    monkeypatch.setattr(engine, "_worker_lint", counting)
    r = engine.lint_paths(files, Config(), jobs=jobs, use_cache=False, isolate=isolate)
    assert not r.errors, r.errors
    return sorted(json.dumps(f.to_dict(), sort_keys=True) for f in r.findings), len(seen)


def test_a_streamed_first_round_finds_the_same_with_fewer_analyses(monkeypatch):
    files = sorted(str(p) for p in FIX.rglob("*.py"))
    # in-process, one file at a time, importers first (the model calls into ops/ and base/)
    streamed, n_streamed = _run(files, 1, False, monkeypatch)
    assert streamed  # the fixture reports helper lines reached from the model
    # helpers first: each helper is analysed before the calls into it are known, then again
    monkeypatch.setattr("exportlint.schedule.callers_first", lambda paths, texts: sorted(paths, reverse=True))
    helpers_first, n_helpers_first = _run(files, 1, False, monkeypatch)
    assert helpers_first == streamed
    assert n_streamed < n_helpers_first


def test_a_streamed_run_finds_what_a_parallel_run_finds():
    files = sorted(str(p) for p in FIX.rglob("*.py"))
    one = engine.lint_paths(files, Config(), jobs=1, use_cache=False)  # a forked worker, streamed
    two = engine.lint_paths(files, Config(), jobs=2, use_cache=False)  # two workers, rounds at once
    assert not one.errors and not two.errors
    assert [f.to_dict() for f in one.findings] == [f.to_dict() for f in two.findings]
