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


def test_known_codes_is_the_registry():
    from exportlint.checks.base import all_rules
    from exportlint.codes import KNOWN_CODES

    assert tuple(all_rules()) == KNOWN_CODES


_NO_PARSE = {
    # (file name, text): none defines a forward, calls an exporter or converts to eager-quantized
    "cfg.py": "import os\nDEPTH = 4  # noqa: EXL999\nWIDTH = 2  # noqa: EXL101\n",
    "data/loader.py": "def load(p):  # noqa: EXL12, EXL777\n    return open(p).read()\n",
    "tok.py": "# exportlint: noqa\nclass Tok:\n    def encode(self, s):  # noqa: XYZ1\n        return s.split()\n",
    "notes.py": "'''the forward pass is documented here'''\nx = 1  # noqa:EXL9\n",
}


def _write(tmp_path, files):
    out = []
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        out.append(str(p))
    return sorted(out)


def test_files_needing_no_parse_report_what_the_full_path_reports(tmp_path, monkeypatch):
    """Issue 13 (pre-commit on one file must feel instant): a batch whose files need no parse
    is answered without the rules (engine._light_findings); the findings are those of the full
    path, under the default configuration and under select/ignore/per-file-ignores."""
    import exportlint.engine as engine
    from exportlint.config import Config

    files = _write(tmp_path, _NO_PARSE)
    configs = [Config(), Config(ignore=("EXL002",)), Config(select=("EXL1",)),
               Config(per_file_ignores={"cfg.py": ("EXL002",)}, root=tmp_path)]
    for cfg in configs:
        light = engine.lint_paths(files, cfg, jobs=1, use_cache=False, isolate=False)
        monkeypatch.setattr(engine, "_light_findings", lambda *a: None)  # the full path: Linter and rules
        full = engine.lint_paths(files, cfg, jobs=1, use_cache=False, isolate=False)
        monkeypatch.undo()
        assert [f.to_dict() for f in light.findings] == [f.to_dict() for f in full.findings]
        assert light.parsed == full.parsed == len(files)
    assert any(f.code == "EXL002" for f in engine.lint_paths(files, Config(), jobs=1, use_cache=False).findings)


def test_a_batch_needing_no_parse_never_imports_libcst(tmp_path):
    """The CLI on such files, in a fresh interpreter: the right report, and libcst (whose import
    alone costs more than the rest of such a run) is never imported. One model file in the
    batch brings the full path back."""
    import json
    import subprocess
    import sys

    files = _write(tmp_path, _NO_PARSE)
    probe = ("import sys, runpy\nsys.argv = ['exportlint', '--no-cache', '--format', 'json'] + sys.argv[1:]\n"
             "from exportlint.cli import main\nrc = main(sys.argv[1:])\n"
             "print('LIBCST', 'libcst' in sys.modules, file=sys.stderr)\n")
    p = subprocess.run([sys.executable, "-c", probe, *files], capture_output=True, text=True, cwd=tmp_path)
    assert "LIBCST False" in p.stderr, p.stderr
    found = json.loads(p.stdout)
    assert sorted({f["code"] for f in found}) == ["EXL002"]
    assert {(f["path"].rsplit("/", 1)[-1], f["line"]) for f in found} >= {("cfg.py", 2), ("loader.py", 1)}
    model = tmp_path / "net.py"
    model.write_text("import torch\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
                     "        if x.sum() > 0:\n            return x\n        return -x\n")
    p = subprocess.run([sys.executable, "-c", probe, *files, str(model)], capture_output=True, text=True, cwd=tmp_path)
    assert "LIBCST True" in p.stderr, p.stderr
    assert any(f["code"] == "EXL101" for f in json.loads(p.stdout))


def test_a_warm_run_of_a_project_never_imports_libcst(tmp_path):
    """A warm run (every file answered by the cache) hands the callee summaries between the
    files from their stored kinds: the same report as the cold run that filled the cache,
    and no rule module (nor libcst) imported. (48b4677 had the engine read the summaries
    from the rules' registry there, which imported every rule on a warm run: timm's warm
    run went 0.09 -> 0.3 s.)"""
    import json
    import subprocess
    import sys

    pkg = tmp_path / "app"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "stats.py").write_text(
        "import torch\n\n\ndef label_histogram(labels, num_classes):\n"
        "    weights = torch.linspace(0, 1, steps=8)\n"
        "    return labels.bincount(weights, minlength=num_classes)\n")
    (pkg / "classifier.py").write_text(
        "import torch.nn as nn\n\nfrom .stats import label_histogram\n\n\n"
        "class HistClassifier(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(16, 8)\n\n    def forward(self, x):\n        logits = self.fc(x)\n"
        "        return logits, label_histogram(logits.argmax(-1), 8)\n")
    (tmp_path / "pyproject.toml").write_text(f'[tool.exportlint]\ncache-dir = "{(tmp_path / "c").as_posix()}"\n')
    probe = ("import sys\nfrom exportlint.cli import main\n"
             "rc = main(['--format', 'json', '--config', sys.argv[1]] + sys.argv[2:])\n"
             "print('LIBCST', 'libcst' in sys.modules, file=sys.stderr)\n")
    files = [str(pkg / "classifier.py"), str(pkg / "stats.py")]
    args = [sys.executable, "-c", probe, str(tmp_path / "pyproject.toml"), *files]
    cold = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path)
    warm = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path)
    assert "LIBCST False" in warm.stderr, warm.stderr
    found = json.loads(warm.stdout)
    assert found == json.loads(cold.stdout)
    assert ("classifier.py", 13, "EXL401") in {(f["path"].rsplit("/", 1)[-1], f["line"], f["code"]) for f in found}
