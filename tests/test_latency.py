"""Issue 13's one-file latency work: the shortcuts must not change what is found.

Timings are not asserted here (bench/speed.py --one-file prints them)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from exportlint.semantics.index import _EXPORT_CALL_RE, has_export_call

_WORDS = ["export", "trace", "trace_module", "dynamo_export", "draft_export", "export_for_training",
          "export_for_inference", "torch.", "onnx.", "_", "x", "é", "1", "(", " ", "\n", "\t", "exporter",
          "retrace", "my_export", "jit.trace (", "#", "'", "draft_", "dynamo_"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=12))
def test_has_export_call_is_the_regex(parts):
    text = "".join(parts)
    assert has_export_call(text) == (_EXPORT_CALL_RE.search(text) is not None), text


def test_has_export_call_examples():
    for text, want in [("torch.onnx.export(m, x)", True), ("my_export(m)", False), ("draft_export (m)", True),
                       ("retrace(x)", False), ("éexport(x)", False), ("x.trace_module\n(", True),
                       ("torch.jit.trace_module(m, {})", True), ("exported(x)", False), ("", False),
                       ("trace\t(", True), ("export_for_inference(", True), ("dynamo_trace(", False)]:
        assert has_export_call(text) is want, text
        assert (_EXPORT_CALL_RE.search(text) is not None) is want, text


_FWD = ["def", "forward", " ", "\t", "\n", "x", "_", "(", "é", "#", "forwards", "undef", "quantization.", "convert",
        "quantize_dynamic", "prepare", " (", "nquantization."]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_FWD), max_size=10))
def test_word_start_shortcuts_are_the_regexes(parts):
    from exportlint.engine import _MODEL_RE, _QUANT_CONVERT_NOB, _QUANT_CONVERT_RE, _at_word_start, _has_forward_def

    text = "".join(parts)
    assert _has_forward_def(text) == (_MODEL_RE.search(text) is not None), text
    assert _at_word_start(_QUANT_CONVERT_NOB, text) == (_QUANT_CONVERT_RE.search(text) is not None), text


def test_index_store_round_trip_and_use(tmp_path, monkeypatch):
    """semantics/index_store.py: a stored index is the computed one (the outline aside), and a
    project with the store reads it instead of indexing the file again."""
    import dataclasses
    from pathlib import Path

    from exportlint.semantics import index as ix
    from exportlint.semantics import index_store
    from exportlint.semantics import project as pj

    here = Path(__file__).parent
    files = sorted((here / "fixtures" / "project").rglob("*.py")) + sorted((here.parent / "examples").glob("*.py"))
    assert len(files) > 5
    store = str(tmp_path / "idx")
    n_exports = 0
    for f in files:
        text = f.read_text(encoding="utf-8")
        fi = ix.index_source(text, str(f), "m." + f.stem, False)
        index_store.save(store, fi)
        back = index_store.load(store, fi.path, fi.module, fi.is_package, fi.digest)
        assert back == dataclasses.replace(fi, outline=None), f
        assert index_store.load(store, fi.path, fi.module, fi.is_package, "0" * 64) is None
        n_exports += len(fi.export_calls)
    assert n_exports > 0  # export facts (opsets, dynamic dims) went through the store too

    app = here / "fixtures" / "project" / "app"
    files = sorted(str(p) for p in app.rglob("*.py"))
    warm = pj.Project(files)
    warm.store_dir = str(tmp_path / "idx2")
    want = warm.resolve_function("app.ops.clip_boxes")
    assert want is not None and any((tmp_path / "idx2").iterdir())

    def no_indexing(*a, **k):
        raise AssertionError("indexed again")

    monkeypatch.setattr(pj, "index_source", no_indexing)
    again = pj.Project(files)
    again.store_dir = str(tmp_path / "idx2")
    assert again.resolve_function("app.ops.clip_boxes") == want


def test_no_cache_stores_no_index(tmp_path):
    import subprocess
    import sys

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "base.py").write_text("def helper(x):\n    return x.item()\n")
    (tmp_path / "pkg" / "m.py").write_text("import torch\nfrom pkg.base import helper\nclass N(torch.nn.Module):\n"
                                           "    def forward(self, x):\n        return helper(x) + x.item()\n")
    cfg = tmp_path / "pyproject.toml"
    cfg.write_text(f'[tool.exportlint]\ncache-dir = "{(tmp_path / "cache").as_posix()}"\n')
    run = [sys.executable, "-m", "exportlint", "--format", "concise", str(tmp_path / "pkg" / "m.py")]
    r = subprocess.run(run + ["--no-cache"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 1 and "EXL102" in r.stdout and not (tmp_path / "cache").exists()
    r2 = subprocess.run(run, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r2.stdout == r.stdout
    stored = list((tmp_path / "cache").glob("index-v*/*.json"))
    assert len(stored) == 1  # base.py, read to resolve helper()
