"""The reduction of a file's text (``semantics.reduce``) must never change what is reported.

``reduce_source`` blanks what no export entry reaches, and only does so when enough lines go
(``_MIN_SAVED_FRACTION``): so most small files are analysed whole, and a bug in the reduction
hides until a file is big enough. Here every bundled case and example is linted twice, once
with the reduction forced on every file and once with it off, and the findings must be the
same (a reduced ``__init__`` that dropped the arguments of ``nn.Embedding(.., max_norm=1.0)``
lost EXL122, and one that dropped ``batch_first=True`` invented EXL119).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from exportlint import engine
from exportlint.config import Config
from exportlint.engine import lint_paths
from exportlint.semantics import reduce as reduce_mod

ROOT = Path(__file__).resolve().parent.parent


def _files(*dirs: str) -> list[str]:
    out: list[str] = []
    for d in dirs:
        out += sorted(str(p) for p in (ROOT / d).rglob("*.py"))
    return out


def _findings(files: list[str], fraction: float, monkeypatch) -> set[tuple]:
    monkeypatch.setattr(reduce_mod, "_MIN_SAVED_FRACTION", fraction)
    for name in ("_REDUCED", "_MODULES"):
        cache = getattr(engine, name, None)
        if isinstance(cache, dict):
            cache.clear()
    r = lint_paths(files, Config(), jobs=1, use_cache=False)
    assert not r.errors, r.errors
    return {(f.path, f.line, f.column, f.code, f.message) for f in r.findings}


@pytest.mark.parametrize("dirs", [("bench/cases",), ("examples",)])
def test_forced_reduction_reports_what_the_whole_file_reports(dirs, monkeypatch):
    files = _files(*dirs)
    whole = _findings(files, 2.0, monkeypatch)  # never reduce
    reduced = _findings(files, 0.0, monkeypatch)  # reduce whatever can go
    assert whole, "the bundled cases have findings"
    assert sorted(reduced - whole) == [] and sorted(whole - reduced) == []


def test_constructors_whose_arguments_a_rule_reads_keep_them():
    from exportlint.checks import attention_modules, embedding_renorm, module_args

    for rule_modules in (attention_modules._MODULES, embedding_renorm._MODULES, module_args._LSTM, module_args._EBAG):
        assert set(rule_modules) <= reduce_mod._ARGS_READ
