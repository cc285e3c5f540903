"""--confirm: trial export in subprocesses, failure → source mapping, verdicts.

Fast tests (no torch): target resolution, discovery, locating from exception text, the
verdict join. Slow tests (marked ``slow``; need torch, onnx, onnxruntime): a handful of
run_confirm calls, each target in its own worker process.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from exportlint.config import Config
from exportlint.confirm.api import ExporterOutcome, TargetResult, join_findings, run_confirm
from exportlint.confirm.locate import UserFiles, exporter_message, locate_direct
from exportlint.confirm.targets import discover, is_exportdb_module, resolve_spec
from exportlint.findings import EXPORTERS, Finding, Severity

REPO = Path(__file__).resolve().parents[1]
FIX = REPO / "tests" / "fixtures" / "confirm"
PROJ = FIX / "proj"
TINY = PROJ / "models" / "tiny.py"

HAVE_EXPORT_STACK = all(importlib.util.find_spec(m) for m in ("torch", "onnx", "onnxruntime", "onnxscript"))
needs_torch = pytest.mark.skipif(not HAVE_EXPORT_STACK, reason="torch / onnx / onnxruntime not installed")


def _line(path: Path, needle: str) -> int:
    for i, text in enumerate(path.read_text().splitlines(), 1):
        if needle in text:
            return i
    raise AssertionError(needle)


def _finding(code: str, path: Path, line: int, exporters=EXPORTERS) -> Finding:
    return Finding(code=code, severity=Severity.ERROR, path=str(path), line=line, column=1, end_line=line,
                   end_column=2, message=f"{code} static", exporters=tuple(exporters))


def _config(**kw) -> Config:
    from exportlint.config import load_config

    cfg = load_config(PROJ / "pyproject.toml")
    assert cfg.targets["clean"] == "models.tiny:build_clean"
    for k, v in kw.items():
        setattr(cfg, k, v)
    return cfg


# ----------------------------------------------------------------------------- fast
def test_confirm_package_does_not_import_torch():
    code = ("import sys, exportlint.confirm, exportlint.confirm.api, exportlint.confirm.runner, "
            "exportlint.confirm.targets, exportlint.confirm.locate, exportlint.confirm.worker; "
            "assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)))


def test_resolve_module_spec_finds_file_and_line():
    t = resolve_spec("models.tiny:build_clean", root=PROJ)
    assert t.error is None and t.module == "models.tiny" and t.attr == "build_clean"
    assert Path(t.path) == TINY.resolve() and t.line == _line(TINY, "def build_clean")
    assert str(PROJ.resolve()) in t.sys_path


def test_resolve_file_spec_and_errors(tmp_path):
    t = resolve_spec(f"{TINY}:build_clean", root=PROJ)
    assert t.file == str(TINY.resolve()) and t.error is None
    assert "no such file" in resolve_spec("missing/x.py:build", root=PROJ).error
    assert "neither a target" in resolve_spec("models.tiny", root=PROJ).error
    bad = resolve_spec(str(FIX / "exportdb_style" / "not_an_example.py"), root=FIX)
    assert "ExportDB-style" in bad.error


def test_exportdb_discovery():
    d = FIX / "exportdb_style"
    assert is_exportdb_module(d / "scaled_sum.py")
    assert not is_exportdb_module(d / "not_an_example.py")
    ts = discover([d], root=FIX)
    assert [t.name for t in ts] == ["exportdb_style/scaled_sum"]
    assert ts[0].kind == "exportdb" and ts[0].attr is None


def test_locate_from_message_text_and_caused_by(tmp_path):
    user = tmp_path / "m.py"
    user.write_text("x = 1\n" * 20)
    users = UserFiles([str(tmp_path)])
    e = RuntimeError(f'Unsupported: data-dependent branching\n\nfrom user code:\n   File "{user}", line 9, in forward\n'
                     f'    if x.sum() > 0:\n')
    loc = locate_direct(e, users)
    assert (loc.path, loc.line, loc.how) == (str(user.resolve()), 9, "message-user-stack")
    # torch's relative "Caused by: (m.py:12 in forward)"
    e2 = RuntimeError("Could not guard on data-dependent expression Eq(u0, 1)\nCaused by: (m.py:12 in forward)")
    loc2 = locate_direct(e2, users)
    assert (loc2.line, loc2.how) == (12, "caused-by")
    # framework files are never the answer
    torch_like = RuntimeError('File "/usr/lib/python3/site-packages/torch/_dynamo/x.py", line 3, in f')
    assert locate_direct(torch_like, users) is None


def test_locate_walks_cause_chain_and_message_prefers_cause(tmp_path):
    user = tmp_path / "m.py"
    user.write_text("pass\n" * 10)
    users = UserFiles([str(tmp_path)])
    inner = ValueError(f'Original traceback:\n  File "{user}", line 4, in forward')
    try:
        try:
            raise inner
        except ValueError as exc:
            raise RuntimeError("Failed to export the model with torch.export. This is step 1/3") from exc
    except RuntimeError as outer:
        loc = locate_direct(outer, users)
        msg = exporter_message(outer)
    assert loc.line == 4
    assert msg.startswith("[step 1/3] ValueError")


def _tr(name, path, line, outcomes, coverage, files=None):
    tr = TargetResult(name=name, spec=name, path=str(path), line=line,
                      outcomes={e: ExporterOutcome(e, **o) for e, o in outcomes.items()})
    tr.coverage = {str(path): set(coverage)}
    tr.loaded_files = {str(path)} | set(files or ())
    return tr


def test_join_verdicts_and_new_findings(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("\n".join(f"line{i}" for i in range(1, 40)) + "\n")
    p = str(src.resolve())
    confirmed = _finding("EXL101", src, 10)
    refuted = _finding("EXL201", src, 12)
    device = _finding("EXL301", src, 12)  # a pass on one device neither confirms nor refutes it
    unreached = _finding("EXL201", src, 30)
    legacy_only = _finding("EXL102", src, 14, exporters=("onnx-legacy",))
    other_file = _finding("EXL101", tmp_path / "elsewhere.py", 3)
    tr = _tr("t", src, 1, {
        "export-strict": {"status": "fail", "path": p, "line": 10, "stack": [(p, 10)], "message": "Unsupported: branch"},
        "export-nonstrict": {"status": "fail", "path": p, "line": 20, "stack": [(p, 20), (p, 5)],
                             "message": "GuardOnDataDependentSymNode"},
        "onnx-dynamo": {"status": "pass"},
        "onnx-legacy": {"status": "diverged", "divergences": [
            {"variant": "negated", "message": "values differ", "max_abs": 2.0,
             "location": {"path": p, "line": 14, "how": "TracerWarning", "stack": [[p, 14]]}}]},
    }, coverage=[10, 12, 14, 20])
    out = join_findings(Config(root=tmp_path), [confirmed, refuted, device, unreached, legacy_only, other_file],
                        [tr], EXPORTERS)
    assert confirmed.verdict == "confirmed"
    assert confirmed.details["confirm"]["exporters"]["export-strict"] == "confirmed"
    assert confirmed.details["confirm"]["exporters"]["onnx-dynamo"] == "refuted"
    assert refuted.verdict == "refuted"
    assert device.verdict == "untested"
    assert device.details["confirm"]["exporters"]["onnx-dynamo"] == "untested"
    assert unreached.verdict == "not-reached"
    assert legacy_only.verdict == "confirmed"  # the legacy divergence is located at its line
    assert other_file.verdict is None  # no target loaded that file: not checked
    new = [f for f in out if f.code.startswith("EXL9")]
    e901 = [f for f in new if f.code == "EXL901"]
    e902 = [f for f in new if f.code == "EXL902"]
    assert [(f.line, f.exporters) for f in e901] == [(20, ("export-nonstrict",))]
    assert "GuardOnDataDependentSymNode" in e901[0].message and e901[0].severity == Severity.ERROR
    assert [(f.line, f.exporters) for f in e902] == [(14, ("onnx-legacy",))]
    assert e902[0].details["variants"] == ["negated"]


def test_join_every_baked_line_of_a_diverged_trace(tmp_path):
    """A legacy export that diverged on other values is placed at its first data-to-constant
    TracerWarning; the other lines whose data the same trace baked (`h.item()` after
    `t.item()`) are confirmed for the rules that claim it, never refuted; a size read from a
    value baked elsewhere is not refuted either; other findings are refuted as before."""
    src = tmp_path / "m.py"
    src.write_text("\n".join(f"line{i}" for i in range(1, 40)) + "\n")
    p = str(src.resolve())
    first = _finding("EXL102", src, 19, exporters=("onnx-legacy",))
    second = _finding("EXL102", src, 20, exporters=("onnx-legacy",))
    size = _finding("EXL104", src, 22, exporters=("onnx-legacy",))
    branch = _finding("EXL101", src, 24, exporters=("onnx-legacy",))
    use = _finding("EXL104", src, 26, exporters=("onnx-legacy",))  # `torch.arange(h)`: no warning of its own
    shape_loop = _finding("EXL111", src, 30, exporters=("onnx-legacy",))
    warns = [[p, 19, "Converting a tensor to a Python integer might cause the trace to be incorrect."],
             [p, 20, "Converting a tensor to a Python integer might cause the trace to be incorrect."],
             [p, 22, "Converting a tensor to a Python integer might cause the trace to be incorrect."],
             [p, 24, "Converting a tensor to a Python boolean might cause the trace to be incorrect."],
             [p, 30, "torch.tensor results are registered as constants in the trace."]]
    tr = _tr("t", src, 1, {
        "onnx-legacy": {"status": "diverged", "tracer_warnings": warns, "divergences": [
            {"variant": "integer values doubled", "message": "output 0: shape (40, 2), eager (320, 2)",
             "location": {"path": p, "line": 19, "how": "TracerWarning", "stack": [[p, 19]]}}]},
    }, coverage=[19, 20, 22, 24, 26, 30])
    join_findings(Config(root=tmp_path), [first, second, size, branch, use, shape_loop], [tr], ("onnx-legacy",))
    assert first.verdict == "confirmed"  # where the divergence is placed
    assert second.verdict == "confirmed" and size.verdict == "confirmed"
    assert "TracerWarning" in second.details["confirm"]["evidence"][0]["message"]
    assert branch.verdict == "untested"  # baked too: not refuted (EXL101 claims a branch, not a constant)
    assert use.verdict == "untested"  # reads a value the trace baked on another line: not refuted
    assert shape_loop.verdict == "refuted"  # no data of its own baked, and not a data-to-value rule


def test_join_unlocated_failure_goes_to_target(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("class M:\n    pass\n")
    tr = _tr("t", src, 1, {"onnx-legacy": {"status": "fail", "message": "TypeError: missing kwarg"}}, coverage=[])
    out = join_findings(Config(root=tmp_path), [], [tr], ("onnx-legacy",))
    assert len(out) == 1 and out[0].code == "EXL901" and out[0].line == 1
    assert "no source line found" in out[0].message and out[0].details["located_by"] == "target"


def test_rule_pages_have_all_sections():
    for code in ("EXL901", "EXL902"):
        text = (REPO / "rules" / f"{code}.md").read_text()
        assert text.startswith(f"# {code}: ")
        for section in ("## What it detects", "## Why it breaks export", "## Bad example", "## Good example",
                        "## Fix", "## Suppress"):
            assert section in text, (code, section)
        assert "# expect:" not in text
        blocks = re.findall(r"```python\n(.*?)```", text, re.S)
        assert len(blocks) >= 2
        for b in blocks:
            compile(b, code, "exec")


# ----------------------------------------------------------------------------- slow
@pytest.mark.slow
@needs_torch
def test_confirm_fixture_models_all_exporters():
    """Every verdict and every exporter on tiny fixture models (one worker per target)."""
    branch = _line(TINY, "if x.sum() > 0:")
    inv = _line(TINY, "torch.linalg.inv(x)")
    numpy_line = _line(TINY, "return x.numpy()")
    relu = _line(TINY, "return torch.relu(self.lin(x))")
    shape_line = _line(TINY, "if x.shape[0] == 4:")
    findings = [
        _finding("EXL101", TINY, branch),  # confirmed (export fails there; legacy diverges there)
        _finding("EXL302", TINY, relu),  # untested (everything passes on the one device it runs on)
        _finding("EXL201", TINY, numpy_line),  # not reached (the branch never runs)
        _finding("EXL111", TINY, shape_line, exporters=("onnx-dynamo",)),  # confirmed: Dim exported static
    ]
    lines = []
    cfg = _config(confirm_timeout=240.0)
    res = run_confirm(cfg, findings, targets=["clean", "value_branch", "models.tiny:build_unlisted",
                                              "models.tiny:build_never", "models.tiny:build_shape_specialised"],
                      progress=lines.append)
    assert not res.errors, res.errors
    by = {t.name: t for t in res.targets}
    assert set(by["clean"].outcomes) == set(EXPORTERS)
    assert all(o.status == "pass" for o in by["clean"].outcomes.values())
    assert by["clean"].outcomes["onnx-dynamo"].max_abs is not None
    assert by["clean"].outcomes["onnx-dynamo"].max_abs < 1e-4
    assert by["clean"].outcomes["onnx-legacy"].onnx["checker"] == "ok"
    vb = by["value_branch"].outcomes
    for e in ("export-strict", "export-nonstrict", "onnx-dynamo"):
        assert vb[e].status == "fail" and vb[e].line == branch, (e, vb[e])
    assert vb["onnx-legacy"].status == "diverged"
    un = by["models.tiny:build_unlisted"].outcomes
    assert un["onnx-legacy"].status == "fail" and un["onnx-legacy"].line == inv, un["onnx-legacy"]
    assert un["onnx-dynamo"].status == "fail" and un["onnx-dynamo"].line == inv, un["onnx-dynamo"]
    sp = by["models.tiny:build_shape_specialised"].outcomes
    assert sp["onnx-dynamo"].status == "diverged"  # Dim.DYNAMIC exported static without an error
    assert any("requested dynamic" in d["message"] for d in sp["onnx-dynamo"].divergences)
    assert sp["onnx-dynamo"].line == shape_line

    assert findings[0].verdict == "confirmed"
    assert findings[0].details["confirm"]["exporters"]["onnx-legacy"] == "confirmed"
    assert findings[1].verdict == "untested"
    assert findings[2].verdict == "not-reached"
    assert findings[3].verdict == "confirmed"
    e901 = [f for f in res.findings if f.code == "EXL901"]
    e902 = [f for f in res.findings if f.code == "EXL902"]
    assert any(f.line == inv and "onnx-legacy" in f.exporters for f in e901)
    assert not any(f.line == branch for f in e901)  # predicted by EXL101: no EXL901 there
    assert any(f.line == branch and f.exporters == ("onnx-legacy",) for f in e902)
    assert any("onnx-dynamo" in f.exporters for f in e902)
    assert any("onnx-legacy: diverged" in s for s in lines) and any(s.endswith("starting") for s in lines)

    from rich.console import Console

    console = Console(record=True, width=160)
    res.render_summary(console)
    text = console.export_text()
    assert "value_branch" in text and "diverged" in text and "export-strict" in text


@pytest.mark.slow
@needs_torch
def test_confirm_target_errors_are_reported_not_raised():
    cfg = _config(confirm_timeout=12.0, confirm_memory_mb=2048)
    res = run_confirm(cfg, [], targets=["models.tiny:no_such_factory", "models.broken_import:build",
                                        "models.tiny:build_raises", "models.tiny:build_hangs",
                                        "models.tiny:build_crashes", "models.tiny:build_hog", "nope/none.py:x"],
                      exporters=("export-nonstrict",), jobs=2)
    by = {t.name: t for t in res.targets}
    assert len(res.errors) == 7
    missing = by["models.tiny:no_such_factory"]
    assert missing.error_stage == "missing" and "no_such_factory" in missing.error
    imp = by["models.broken_import:build"]
    assert imp.error_stage == "import" and "not_a_real_module_for_exportlint" in imp.error
    assert "broken_import.py\", line 2" in imp.error  # the user's traceback
    raised = by["models.tiny:build_raises"]
    assert raised.error_stage == "factory" and "cannot find the checkpoint" in raised.error
    assert raised.line == _line(TINY, 'raise ValueError("cannot find')
    hang = by["models.tiny:build_hangs"]
    assert hang.error_stage == "timeout" and hang.outcomes["export-nonstrict"].status == "timeout"
    assert "timed out after 12s" in hang.error
    crash = by["models.tiny:build_crashes"]
    assert crash.error_stage == "crash" and "signal" in crash.error
    hog = by["models.tiny:build_hog"]
    assert hog.error_stage == "memory" and "2048 MiB" in hog.error
    assert "no such file" in by["nope/none.py:x"].error
    assert all(t.failed for t in res.targets)


@pytest.mark.slow
@needs_torch
def test_confirm_exportdb_style_discovery_and_torch_exportdb_example():
    import importlib.util as iu

    exdb = Path(list(iu.find_spec("torch").submodule_search_locations)[0]) / "_export" / "db" / "examples"
    rnd = exdb / "dynamic_shape_round.py"
    cfg = Config(root=FIX)
    res = run_confirm(cfg, [], paths=[FIX / "exportdb_style", rnd], exporters=("export-nonstrict", "onnx-legacy"),
                      fork_server=False)  # the plain one-process-per-target path
    assert not res.errors, res.errors
    by = {t.name: t for t in res.targets}
    assert set(by) == {"exportdb_style/scaled_sum", "dynamic_shape_round"}
    assert all(o.status == "pass" for o in by["exportdb_style/scaled_sum"].outcomes.values())
    r = by["dynamic_shape_round"].outcomes
    # a constraint violation carries no location: found by the draft_export second pass
    assert r["export-nonstrict"].status == "fail" and r["export-nonstrict"].line == _line(rnd, "round(")
    assert r["onnx-legacy"].status == "fail" and r["onnx-legacy"].line == _line(rnd, "round(")


@pytest.mark.slow
@needs_torch
def test_ctrl_c_stops_cleanly(tmp_path):
    pidfile = tmp_path / "pid"
    script = textwrap.dedent(f"""
        from pathlib import Path
        from exportlint.config import Config
        from exportlint.confirm.api import run_confirm
        cfg = Config(root=Path({str(PROJ)!r}))
        res = run_confirm(cfg, [], targets=["models.tiny:build_hangs", "clean"], exporters=("export-nonstrict",),
                          progress=lambda s: print(s, flush=True))
        print("INTERRUPTED" if res.interrupted else "FINISHED", [t.outcomes["export-nonstrict"].status for t in res.targets])
    """)
    env = dict(os.environ, PYTHONPATH=str(REPO), EXPORTLINT_TEST_PIDFILE=str(pidfile))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    deadline = time.time() + 60
    while not pidfile.exists() or not pidfile.read_text():
        assert time.time() < deadline and proc.poll() is None, "worker never started"
        time.sleep(0.1)
    worker = int(pidfile.read_text())
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert "INTERRUPTED ['skipped', 'skipped']" in out, out
    assert "Traceback" not in out
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.kill(worker, 0)


# ----------------------------------------------------------------------------- CLI
def _cli(*args, timeout=400):
    return subprocess.run([sys.executable, "-m", "exportlint", *args], cwd=PROJ, capture_output=True,
                          text=True, timeout=timeout)


@needs_torch
def test_cli_confirm_target_errors_are_named_on_stderr_and_do_not_stop_others():
    # one target whose factory raises, one that cannot be imported, one that exports cleanly
    p = _cli("confirm", "models.tiny:build_raises", "models.broken_import:build", "models.tiny:build_clean",
             "--exporter", "export-nonstrict", "--format", "json")
    assert p.returncode == 1, p.stderr
    assert "models.tiny:build_raises" in p.stderr and "models.broken_import:build" in p.stderr
    assert "Traceback" in p.stderr or "Error" in p.stderr
    json.loads(p.stdout)  # the json output stays parseable: errors are not mixed into stdout


@needs_torch
def test_cli_confirm_clean_target_exits_zero_with_a_summary_table():
    p = _cli("confirm", "clean", "--exporter", "export-strict", "--exporter", "export-nonstrict")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "exportlint --confirm" in p.stdout and "pass" in p.stdout


def test_cli_confirm_unknown_exporter_is_a_usage_error():
    p = _cli("confirm", "clean", "--exporter", "tensorrt")
    assert p.returncode == 2 and "unknown exporter 'tensorrt'" in p.stderr


@pytest.mark.slow
@needs_torch
def test_per_exporter_time_limit_reports_timeout_and_runs_the_rest():
    cfg = _config(confirm_timeout=120.0, confirm_exporter_timeout=4.0)
    events = []

    class Recorder:
        def __call__(self, msg):
            pass

        def event(self, kind, **d):
            events.append((kind, d.get("exporter"), d.get("status")))

    res = run_confirm(cfg, [], targets=["models.tiny:build_slow_to_trace"],
                      exporters=("export-strict", "export-nonstrict"), progress=Recorder())
    t = res.targets[0]
    strict, nonstrict = t.outcomes["export-strict"], t.outcomes["export-nonstrict"]
    assert strict.status == "timeout" and "timed out after 4s" in strict.message, strict
    assert nonstrict.status == "pass", nonstrict  # ran in a fresh worker after the kill
    assert ("exporter-start", "export-strict", None) in events
    assert ("exporter", "export-strict", "timeout") in events and ("exporter", "export-nonstrict", "pass") in events
    assert res.summary_line().startswith("1 target(s): 0 export with every exporter")
    assert "1 timed out" in res.summary_line()


def test_progress_is_silent_for_machine_formats_and_pipes(monkeypatch):
    from exportlint.confirm.progress import make_progress

    class Tty:
        def isatty(self):
            return True

        def write(self, s):
            return len(s)

        def flush(self):
            pass

    monkeypatch.delenv("CI", raising=False)
    assert make_progress("json", Tty()) is None and make_progress("sarif", Tty()) is None
    assert make_progress("text", subprocess.PIPE and open(os.devnull, "w")) is None  # not a terminal
    assert make_progress("text", Tty()) is not None
    monkeypatch.setenv("CI", "true")
    assert make_progress("text", Tty()) is None
