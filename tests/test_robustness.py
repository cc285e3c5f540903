"""Bad input never crashes the run: it becomes EXL001 (or is skipped) and other files are linted."""

import os
import sys

import pytest

from exportlint.cli import main

BAD = "import torch\nclass N(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n"


def lint_dir(tmp_path, capsys, *extra):
    rc = main([str(tmp_path), "--no-cache", "--format", "concise", *extra])
    out, err = capsys.readouterr()
    return rc, out, err


def test_syntax_error_is_a_finding_and_others_still_lint(tmp_path, capsys):
    (tmp_path / "broken.py").write_text("def forward(self:\n    pass\n")
    (tmp_path / "ok.py").write_text(BAD)
    rc, out, err = lint_dir(tmp_path, capsys)
    assert rc == 1 and err == ""
    # the position is CPython's (compile()), exact where libcst's can be a line off
    assert "broken.py:1:12: EXL001 syntax error: '(' was never closed" in out
    assert "ok.py:4:16: EXL102" in out


def test_binary_undecodable_empty_files(tmp_path, capsys):
    (tmp_path / "bin.py").write_bytes(b"\x00\x01\x02def forward")
    (tmp_path / "latin.py").write_bytes(b"x = '\xff\xfe'\ndef forward(self, x): pass\n")
    (tmp_path / "empty.py").write_text("")
    (tmp_path / "ok.py").write_text(BAD)
    rc, out, err = lint_dir(tmp_path, capsys)
    assert "bin.py:1:1: EXL001" in out and "not a text file" in out
    assert "latin.py:1:" in out and "cannot decode" in out
    assert "empty.py" not in out
    assert "ok.py" in out and err == ""


def test_declared_encoding_is_honoured(tmp_path, capsys):
    src = "# -*- coding: latin-1 -*-\n" + BAD.replace("return x.item()", "return x.item()  # caf\xe9")
    (tmp_path / "enc.py").write_bytes(src.encode("latin-1"))
    rc, out, err = lint_dir(tmp_path, capsys)
    assert "enc.py:5:16: EXL102" in out


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_unreadable_file(tmp_path, capsys):
    p = tmp_path / "secret.py"
    p.write_text(BAD)
    p.chmod(0)
    (tmp_path / "ok.py").write_text(BAD)
    rc, out, err = lint_dir(tmp_path, capsys)
    assert rc == 2 and "secret.py" in err and "cannot read file" in err
    assert "ok.py" in out and "secret.py" not in out  # the rest is linted


def test_unreadable_file_in_the_engine_is_reported_not_a_finding(tmp_path):
    """Runs as root too: a path that cannot be opened as a file (a directory) is listed in
    RunResult.unreadable and the other files are linted."""
    from exportlint.config import Config
    from exportlint.engine import lint_paths

    (tmp_path / "ok.py").write_text(BAD)
    weird = tmp_path / "dir.py"
    weird.mkdir()
    r = lint_paths([str(weird), str(tmp_path / "ok.py")], Config(), jobs=1, use_cache=False)
    assert [p for p, _ in r.unreadable] == [str(weird)]
    assert all(f.path != str(weird) for f in r.findings)
    assert any(f.path.endswith("ok.py") and f.code == "EXL102" for f in r.findings)


def test_symlink_loop_and_broken_link(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "ok.py").write_text(BAD)
    os.symlink(tmp_path, tmp_path / "a" / "loop")
    os.symlink(tmp_path / "nowhere.py", tmp_path / "dangling.py")
    rc, out, err = lint_dir(tmp_path, capsys)
    assert rc == 1 and out.count("EXL102") == 1


def test_very_large_file(tmp_path, capsys):
    body = "".join(f"        y{i} = x + {i}\n" for i in range(40000))
    src = "import torch\nclass N(torch.nn.Module):\n    def forward(self, x):\n" + body + "        return x.item()\n"
    (tmp_path / "big.py").write_text(src)
    rc, out, err = lint_dir(tmp_path, capsys)
    assert rc == 1 and "EXL102" in out and err == ""


def test_deeply_nested_expression_does_not_crash(tmp_path, capsys):
    expr = "(" * 200 + "x" + ")" * 200
    (tmp_path / "deep.py").write_text(f"import torch\nclass N(torch.nn.Module):\n    def forward(self, x):\n        return {expr}\n")
    rc, out, err = lint_dir(tmp_path, capsys)
    assert rc in (0, 1) and "internal error" not in err


def test_nesting_deeper_than_python_allows_is_a_finding_not_a_segfault(tmp_path):
    # libcst's native parser overflows the C stack on a few thousand nested calls (a segfault
    # that would kill the whole run); CPython refuses more than 200 levels, so it is EXL001
    import subprocess

    deep = "f(" * 3000 + "1" + ")" * 3000
    (tmp_path / "deep.py").write_text(f"import torch\ndef forward(x):\n    return {deep}\n")
    (tmp_path / "ok.py").write_text(BAD)
    # a string full of brackets is not nesting: that file is linted normally
    (tmp_path / "brackets_in_string.py").write_text(BAD + "S = '" + "(" * 300 + "'\n")
    p = subprocess.run([sys.executable, "-m", "exportlint", str(tmp_path), "--no-cache", "--format", "concise"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "deep.py:3:413: EXL001 syntax error: too many nested parentheses" in p.stdout
    assert "ok.py:4:16: EXL102" in p.stdout
    assert "brackets_in_string.py:4:16: EXL102" in p.stdout


HDR = "import torch\nclass N(torch.nn.Module):\n    def forward(self, x):\n"


def _run_cli(*args, timeout=300):
    import subprocess

    return subprocess.run([sys.executable, "-m", "exportlint", *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_pathological_files_do_not_lose_the_run(tmp_path, jobs):
    # a 10,000-term expression used to kill the whole run with SIGSEGV (libcst's native
    # parser); a 500-term expression and a 1,000-branch elif chain ended in an internal error
    (tmp_path / "plus10k.py").write_text(HDR + "        return " + " + ".join(["x"] * 10000) + "\n")
    (tmp_path / "plus500.py").write_text(HDR + "        y = " + " + ".join(["x"] * 500) + "\n        return y.item()\n")
    (tmp_path / "elif1000.py").write_text(
        HDR + "        if x.shape[0] > 0:\n            y = x\n"
        + "".join(f"        elif x.shape[0] > {i}:\n            y = x * {i}\n" for i in range(1000))
        + "        return y.item()\n"
    )
    for i in range(8):  # enough files for the process pool
        (tmp_path / f"ok{i}.py").write_text(BAD)
    r = _run_cli(str(tmp_path), "--no-cache", "--format", "concise", "-j", jobs)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "internal error" not in r.stderr
    assert "plus10k.py:4:1: EXL003 too deeply nested" in r.stdout
    assert "plus500.py:5:16: EXL102" in r.stdout
    assert "elif1000.py:2006:16: EXL102" in r.stdout
    assert r.stdout.count("EXL102") == 10


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("n_ok", [1, 9])  # one worker / the process pool
def test_a_worker_that_dies_costs_its_file_only(tmp_path, jobs, n_ok):
    """A native crash the guards of isolation.py do not predict (none is known, so the engine's
    internal test hook makes the worker kill itself with SIGSEGV on one file): the run
    completes, that file has a located EXL003 naming the signal, every other file keeps its
    findings, exit 1, no traceback (workers.py)."""
    for i in range(n_ok):
        (tmp_path / f"ok{i}.py").write_text(BAD)
    (tmp_path / "native_crash.py").write_text(HDR + "        return x.view(-1, " + " + ".join(["1"] * 40) + ")\n")
    env = dict(os.environ, _EXPORTLINT_TEST_CRASH_SUFFIX="native_crash.py")
    import subprocess

    r = subprocess.run([sys.executable, "-m", "exportlint", str(tmp_path), "--no-cache", "--format", "concise",
                        "-j", jobs], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert r.stdout.count("EXL102") == n_ok
    for i in range(n_ok):
        assert f"ok{i}.py:4:16: EXL102" in r.stdout
    crash = [ln for ln in r.stdout.splitlines() if "native_crash.py" in ln]
    assert crash == [f"{tmp_path / 'native_crash.py'}:4:1: EXL003 exportlint's analyser process died with "
                     "signal 11 (SIGSEGV) while analysing this file; exportlint skipped it (the line is the "
                     "file's most deeply nested one, the likely cause)"], r.stdout
    # with the cache: the verdict is written like any other, and read back the same
    cfg = tmp_path / "pyproject.toml"
    cfg.write_text(f'[tool.exportlint]\ncache-dir = "{(tmp_path / "cache").as_posix()}"\n')
    outs = [subprocess.run([sys.executable, "-m", "exportlint", str(tmp_path), "--config", str(cfg), "--format",
                            "concise", "-j", jobs], capture_output=True, text=True, timeout=120, env=env)
            for _ in range(2)]
    assert [o.returncode for o in outs] == [1, 1] and outs[0].stdout == outs[1].stdout == r.stdout
    # EXL003 turned off: the crashed file is silent like any other EXL003, the rest is reported
    off = subprocess.run([sys.executable, "-m", "exportlint", str(tmp_path), "--no-cache", "--format", "concise",
                          "-j", jobs, "--ignore", "EXL003"], capture_output=True, text=True, timeout=120, env=env)
    assert off.returncode == 1 and "native_crash.py" not in off.stdout and off.stdout.count("EXL102") == n_ok


def test_pool_reruns_the_batch_of_a_dead_worker(tmp_path):
    """workers.Pool: the culprit is the first unanswered item of the dead worker's batch, the
    rest of its batch is linted again, the culprit alone in a fresh process decides."""
    import multiprocessing as mp

    from exportlint.workers import Crashed, Pool

    if not sys.platform.startswith("linux"):
        pytest.skip("fork start method")
    pool = Pool(2, _die_on_13, context=mp.get_context("fork"))
    try:
        out = list(pool.imap_unordered(list(range(40)), chunksize=4))
    finally:
        pool.close()
    crashed = [r for r in out if isinstance(r, Crashed)]
    assert len(crashed) == 1 and crashed[0].item == 13 and crashed[0].how() == "signal 9 (SIGKILL)"
    assert sorted(r for r in out if not isinstance(r, Crashed)) == [i * 2 for i in range(40) if i != 13]
    assert pool.deaths == [(13, -9)]


def _die_on_13(i: int) -> int:
    if i == 13:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    return i * 2


def _hang_on_13(i):
    if i == 13:
        import time

        time.sleep(3600)
    return i * 2


def test_pool_stops_a_worker_that_does_not_answer():
    """workers.Pool(item_timeout=...): the item a worker is stuck on is reported (timed_out, not
    re-run), the worker is replaced, the rest of its batch is linted."""
    import multiprocessing as mp
    import time

    from exportlint.workers import Crashed, Pool

    if not sys.platform.startswith("linux"):
        pytest.skip("fork start method")
    pool = Pool(2, _hang_on_13, context=mp.get_context("fork"), item_timeout=1.0)
    t0 = time.monotonic()
    try:
        out = list(pool.imap_unordered(list(range(40)), chunksize=4))
    finally:
        pool.close()
    assert time.monotonic() - t0 < 20
    stuck = [r for r in out if isinstance(r, Crashed)]
    assert len(stuck) == 1 and stuck[0].item == 13 and stuck[0].how() == "no answer after 1 s"
    assert sorted(r for r in out if not isinstance(r, Crashed)) == [i * 2 for i in range(40) if i != 13]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_whose_analysis_does_not_end_is_stopped(tmp_path, jobs):
    """`file-timeout`: an analysis that does not end (the engine's internal test hook makes the
    worker sleep on one file) costs that file only: a located EXL003 saying so, the other files'
    findings, exit 1, no traceback."""
    import subprocess

    (tmp_path / "ok.py").write_text(BAD)
    (tmp_path / "stuck.py").write_text(BAD)
    (tmp_path / "pyproject.toml").write_text("[tool.exportlint]\nfile-timeout = 2\n")
    env = dict(os.environ, _EXPORTLINT_TEST_HANG_SUFFIX="stuck.py")
    r = subprocess.run([sys.executable, "-m", "exportlint", str(tmp_path), "--no-cache", "--format", "concise",
                        "-j", jobs], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert f"{tmp_path / 'ok.py'}:4:16: EXL102" in r.stdout
    stuck = [ln for ln in r.stdout.splitlines() if "stuck.py" in ln]
    assert len(stuck) == 1 and "EXL003 exportlint stopped analysing this file: no answer after 2 s" in stuck[0], r.stdout
    # never cached (whether it ends in time depends on the load): without the hook, with the
    # cache, the file is analysed the second time
    cfg = tmp_path / "pyproject.toml"
    cfg.write_text(f'[tool.exportlint]\nfile-timeout = 2\ncache-dir = "{(tmp_path / "cache").as_posix()}"\n')
    first = subprocess.run([sys.executable, "-m", "exportlint", str(tmp_path), "--format", "concise", "-j", jobs],
                           capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert "stuck.py" in first.stdout and "EXL003" in first.stdout
    env.pop("_EXPORTLINT_TEST_HANG_SUFFIX")
    second = subprocess.run([sys.executable, "-m", "exportlint", str(tmp_path), "--format", "concise", "-j", jobs],
                            capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert "EXL003" not in second.stdout and f"{tmp_path / 'stuck.py'}:4:16: EXL102" in second.stdout, second.stdout
