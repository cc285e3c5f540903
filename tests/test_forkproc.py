"""exportlint/forkproc.py: the fork-only stand-in for multiprocessing that workers.Pool uses
on Linux, and what the one-file call imports (issue 13's latency: no multiprocessing,
tempfile, tomllib without a configuration file, no renderer for a clean run)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")


def _echo(conn):
    while True:
        try:
            x = conn.recv()
        except EOFError:
            return
        if x is None:
            return
        conn.send(("got", x))


def _die(conn, how):
    if how == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if how == "raise":
        raise RuntimeError("boom")
    if how == "hang":
        time.sleep(60)
    sys.exit(3)


def test_round_trip_large_messages_and_clean_exit():
    from exportlint.forkproc import FORK

    parent, child = FORK.Pipe()
    p = FORK.Process(target=_echo, args=(child,))
    p.start()
    child.close()
    big = "x" * 3_000_000  # larger than a pipe buffer, both ways
    for msg in ([1, "a"], {"k": big}):
        parent.send(msg)
        assert FORK.wait([parent, p.sentinel], timeout=10) == [parent]
        assert parent.poll() and parent.recv() == ("got", msg)
    parent.send(None)
    p.join(10)
    assert p.exitcode == 0 and not p.is_alive()
    parent.close()


@pytest.mark.parametrize("how,code", [("segv", -signal.SIGSEGV), ("raise", 1), ("exit", 3)])
def test_exit_codes_and_sentinel(how, code):
    from exportlint.forkproc import FORK

    parent, child = FORK.Pipe()
    p = FORK.Process(target=_die, args=(child, how))
    p.start()
    child.close()
    assert FORK.wait([parent, p.sentinel], timeout=10)  # ready: the child is gone
    p.join(10)
    assert p.exitcode == code
    assert not p.is_alive()
    with pytest.raises(EOFError):
        parent.recv()
    assert FORK.wait([p.sentinel], timeout=0) == [p.sentinel]  # a reaped child's sentinel stays ready
    parent.close()


def test_kill_a_hanging_child():
    from exportlint.forkproc import FORK

    parent, child = FORK.Pipe()
    p = FORK.Process(target=_die, args=(child, "hang"))
    p.start()
    child.close()
    assert FORK.wait([parent, p.sentinel], timeout=0.2) == []
    p.kill()
    p.join(5)
    assert p.exitcode == -signal.SIGKILL
    parent.close()


def test_one_file_call_imports_only_what_it_needs(tmp_path):
    """A one-file call with no configuration file: the worker pool without multiprocessing,
    no tempfile (--no-cache), no tomllib, no renderer for a clean run; torch never."""
    (tmp_path / "m.py").write_text(
        "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n")
    code = (
        "import sys, exportlint.cli as c\n"
        "rc = c.main(['--no-cache', 'm.py'])\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('multiprocessing', 'tempfile', 'tomllib', 'torch', 'socket') or m in ('exportlint.report', 'exportlint.fixes.run'))\n"
        "print('rc', rc, 'bad', bad)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "rc 0 bad []" in r.stdout, r.stdout + r.stderr
