"""The first round of a one-worker project run leaves the rules of a file for later when one of
its calls waits for the result kind of a file the stream analyses after it (``engine._deferring``):
a file re-analysed once that kind comes back runs its rules once, on the final analysis; a file
whose inputs did not change runs them on the kept model ("finish"). The findings, the cache's
record of each file and the fallbacks (the kept model lost, a forked worker) are those of a run
that runs every file's rules at once (the slow form: ``_deferring`` answering None)."""

from __future__ import annotations

import json
from pathlib import Path

from exportlint import engine
from exportlint.config import Config

FIX = Path(__file__).parent / "fixtures" / "project" / "app"

_PKG = {
    "pkg/__init__.py": "",
    "pkg/ops.py": (
        "import torch\n\n\n"
        "def scale(x):\n    return x * 2\n\n\n"
        "def log_shape(x):\n    print(x.shape)\n"
    ),
    # scale's result kind (a tensor) comes back after this file: analysed again, rules once
    "pkg/model.py": (
        "import torch\nfrom torch import nn\n\nfrom .ops import log_shape, scale\n\n\n"
        "class M(nn.Module):\n    def forward(self, x):\n        y = scale(x)\n"
        "        if y.sum() > 0:\n            y = y + 1\n        return y\n"
    ),
    # log_shape returns nothing: the inputs stay, the rules run on the kept model
    "pkg/other.py": (
        "import torch\nfrom torch import nn\n\nfrom .ops import log_shape\n\n\n"
        "class N(nn.Module):\n    def forward(self, x):\n        log_shape(x)\n"
        "        if x.sum() > 0:\n            x = x * 2\n        return x.numpy()\n"
    ),
}


def _files(tmp_path: Path) -> list[str]:
    for rel, text in _PKG.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return sorted(str(p) for p in (tmp_path / "pkg").glob("*.py")) + sorted(str(p) for p in FIX.rglob("*.py"))


def _run(files: list[str], monkeypatch, *, defer: bool, isolate: bool = False, lose: bool = False,
         config: Config | None = None, use_cache: bool = False) -> tuple[list[str], list[tuple], int, engine.RunResult]:
    """(findings, the worker's items and answers (name, mode, deferred), rule runs, result)."""
    seen: list[tuple] = []
    rules = [0]
    real_worker, real_rules = engine._worker_lint, engine.Linter._rules_and_report

    def worker(item):
        if lose and len(item) > 3 and item[3] == "finish":
            engine._DEFERRED.clear()  # the kept model is gone (a restarted worker): analysed anew
        r = real_worker(item)
        seen.append((Path(item[0]).name, item[3] if len(item) > 3 else None, bool(len(r) > 6 and r[6])))
        return r

    def counting(self, *a, **k):
        rules[0] += 1
        return real_rules(self, *a, **k)

    # (the in-process project of an earlier run resolves `pkg.ops` to that run's folder)
    monkeypatch.setattr(engine, "_PROJECT", None)
    monkeypatch.setattr(engine, "_worker_lint", worker)
    monkeypatch.setattr(engine.Linter, "_rules_and_report", counting)
    if not defer:
        monkeypatch.setattr(engine, "_deferring", lambda path: None)
    r = engine.lint_paths(files, config or Config(), jobs=1, use_cache=use_cache, isolate=isolate)
    monkeypatch.undo()
    assert not r.errors, r.errors
    return sorted(json.dumps(f.to_dict(), sort_keys=True) for f in r.findings), seen, rules[0], r


def test_deferred_rules_find_what_rules_at_once_find(tmp_path, monkeypatch):
    files = _files(tmp_path)
    slow, slow_seen, slow_rules, slow_r = _run(files, monkeypatch, defer=False)
    fast, seen, fast_rules, fast_r = _run(files, monkeypatch, defer=True)
    assert fast == slow and len(fast) >= 3
    # both kinds of wait happened: analysed again (model.py), finished on the kept model (other.py)
    assert ("model.py", "defer", True) in seen and ("model.py", None, False) in seen
    assert ("other.py", "defer", True) in seen and ("other.py", "finish", False) in seen
    assert not any(waits for _, _, waits in slow_seen)  # (the slow form never waits)
    # the same analyses (a finish parses nothing), fewer rule runs
    assert fast_r.parsed == slow_r.parsed
    assert fast_rules < slow_rules
    assert not engine._DEFERRED and not engine._STREAM_ORDER  # nothing left for the next run


def test_a_lost_kept_model_is_analysed_anew_with_the_same_findings(tmp_path, monkeypatch):
    files = _files(tmp_path)
    slow = _run(files, monkeypatch, defer=False)[0]
    lost, seen, _, _ = _run(files, monkeypatch, defer=True, lose=True)
    assert ("other.py", "finish", False) in seen
    assert lost == slow


def test_a_forked_worker_defers_and_finds_the_same(tmp_path, monkeypatch):
    files = _files(tmp_path)
    slow = _run(files, monkeypatch, defer=False)[0]
    one = engine.lint_paths(files, Config(), jobs=1, use_cache=False)  # a forked worker, streamed
    two = engine.lint_paths(files, Config(), jobs=2, use_cache=False)  # two workers, no stream
    assert not one.errors and not two.errors
    assert sorted(json.dumps(f.to_dict(), sort_keys=True) for f in one.findings) == slow
    assert [f.to_dict() for f in one.findings] == [f.to_dict() for f in two.findings]


def test_the_cache_records_a_deferred_file_as_one_linted_at_once(tmp_path, monkeypatch):
    files = _files(tmp_path / "src")
    stored = {}
    for defer in (False, True):
        cfg = Config()
        cfg.cache_dir = tmp_path / f"cache-{defer}"
        cold = _run(files, monkeypatch, defer=defer, config=cfg, use_cache=True)
        warm = _run(files, monkeypatch, defer=defer, config=cfg, use_cache=True)
        assert warm[0] == cold[0]
        assert warm[3].parsed == 0 and warm[2] == 0  # every file answered by the cache (deps recorded)
        stored[defer] = sorted(json.dumps(json.loads(p.read_text()), sort_keys=True)
                               for p in cfg.cache_dir.glob("*.json"))
        assert stored[defer]
    assert stored[True] == stored[False]
