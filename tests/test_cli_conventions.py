"""Issue 13: the CLI behaves as ruff/pytest users expect (real subprocess runs, a real pty)."""

import json
import os
import pty
import select
import subprocess
import sys

import pytest

BAD = "import torch\nclass N(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n"


def run(*args, cwd=None, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "exportlint", *args], capture_output=True, text=True,
                          cwd=cwd, env=e, timeout=120)


def run_pty(args, env):
    """Run with stdout and stderr on a real terminal; returns (exit status, bytes printed)."""
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    e.update(env, TERM="xterm-256color")
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "exportlint", *args], stdin=slave, stdout=slave, stderr=slave, env=e)
    os.close(slave)
    out = b""
    while True:
        r, _, _ = select.select([master], [], [], 60)
        if not r:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=60), out


@pytest.mark.parametrize("argv", [["rule", "--help"], ["rules", "--help"], ["ops", "--help"], ["server", "--help"],
                                  ["check", "--help"], ["confirm", "--help"], ["--help"]])
def test_every_subcommand_has_help(argv):
    r = run(*argv)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage: exportlint"), r.stdout
    assert "tensor-to-python" not in r.stdout  # `rules --help` does not print the catalogue


def test_server_help_without_pygls(tmp_path):
    # a pygls that cannot be imported: --help still works
    (tmp_path / "pygls").mkdir()
    (tmp_path / "pygls" / "__init__.py").write_text("raise ImportError('no pygls here')\n")
    r = run("server", "--help", env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"})
    assert r.returncode == 0 and "usage: exportlint server" in r.stdout


def test_no_color_and_force_color_on_a_terminal(tmp_path):
    (tmp_path / "m.py").write_text(BAD)
    args = [str(tmp_path / "m.py"), "--no-cache"]
    rc, out = run_pty(args, {})
    assert rc == 1 and b"\x1b[" in out  # a terminal gets colour
    rc, out = run_pty(args, {"NO_COLOR": "1"})
    assert rc == 1 and b"EXL102" in out and b"\x1b[" not in out
    r = run(*args, env={"FORCE_COLOR": "1"})  # piped, but forced
    assert r.returncode == 1 and "\x1b[" in r.stdout
    r = run(*args)
    assert "\x1b[" not in r.stdout


def test_piped_text_never_wraps(tmp_path):
    (tmp_path / "m.py").write_text(BAD.replace("return x.item()", "return x.item()" + " + 0" * 60))
    r = run(str(tmp_path / "m.py"), "--no-cache", env={"COLUMNS": "80"})
    line = next(ln for ln in r.stdout.splitlines() if "EXL102" in ln and "|" not in ln)
    assert len(line) > 80 and "Keep it a tensor" in line


def test_statistics_json(tmp_path):
    (tmp_path / "m.py").write_text(BAD)
    r = run(str(tmp_path), "--no-cache", "--statistics", "--format", "json")
    assert r.returncode == 1
    rows = json.loads(r.stdout)
    assert rows == [{"code": "EXL102", "name": "tensor-to-python", "count": 1, "fixable": 0}]


def test_summary_counts_say_what_they_count(tmp_path):
    (tmp_path / "m.py").write_text(BAD.replace("return x.item()", "y = x.item()\n        return x.item() + y"))
    (tmp_path / "clean.py").write_text("x = 1\n")
    r = run(str(tmp_path), "--no-cache")
    assert "Found 2 problems (2 errors, 0 warnings) in 1 file (2 files checked)." in r.stdout
    (tmp_path / "m.py").unlink()
    r = run(str(tmp_path), "--no-cache")
    assert r.returncode == 0 and "All checks passed (1 file checked)." in r.stdout


def test_gitignore_and_ignore_files_are_respected(tmp_path):
    for d in ("src", "generated", "vendor/copy"):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "m.py").write_text(BAD)
    (tmp_path / ".gitignore").write_text("# build outputs\ngenerated/\n")
    (tmp_path / "vendor" / ".ignore").write_text("copy/\n")
    r = run(".", "--no-cache", "--format", "concise", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout.count("EXL102") == 1 and "src/m.py" in r.stdout
    r = run(".", "--no-cache", "--format", "concise", "--no-respect-gitignore", cwd=tmp_path)
    assert r.stdout.count("EXL102") == 3


def test_symlink_loop_is_called_a_loop(tmp_path):
    (tmp_path / "m.py").write_text(BAD)
    os.symlink("self.py", tmp_path / "self.py")
    os.symlink("nowhere.py", tmp_path / "dangling.py")
    r = run(str(tmp_path), "--no-cache", "--format", "concise")
    assert r.returncode == 1 and "EXL102" in r.stdout
    assert "self.py: symbolic link loop" in r.stderr
    assert "dangling.py: broken symbolic link" in r.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_unreadable_directory_is_an_error_and_the_rest_is_linted(tmp_path):
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "m.py").write_text(BAD)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "m.py").write_text(BAD)
    locked.chmod(0)
    try:
        r = run(str(tmp_path), "--no-cache", "--format", "concise")
    finally:
        locked.chmod(0o755)
    assert r.returncode == 2 and "ok/m.py:4:16: EXL102" in r.stdout
    assert "error:" in r.stderr and "locked" in r.stderr and "cannot read directory" in r.stderr


def test_verbose_lists_files_cache_hits_and_timings(tmp_path):
    (tmp_path / "m.py").write_text(BAD)
    cache = tmp_path / "cache"
    (tmp_path / "pyproject.toml").write_text(f'[tool.exportlint]\ncache-dir = "{cache}"\n')
    r1 = run(str(tmp_path), "-v", cwd=tmp_path)
    r2 = run(str(tmp_path), "-v", cwd=tmp_path)
    assert r1.returncode == r2.returncode == 1
    assert f"exportlint: file {tmp_path / 'm.py'}" in r1.stderr
    assert "1 files: 0 from the cache, 1 linted, 1 findings in" in r1.stderr
    assert "1 files: 1 from the cache, 0 linted, 1 findings in" in r2.stderr
    assert "EXL102" in r2.stdout and "exportlint: file" not in r2.stdout
