"""Issue 13: --add-noqa, --show-settings, --watch and the progress bar (real subprocess runs)."""

import json
import os
import signal
import subprocess
import sys
import time

BAD = "import torch\nclass N(torch.nn.Module):\n    def forward(self, x):\n        return x.item()\n"


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "exportlint", "--no-cache", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_add_noqa_suppresses_every_finding(tmp_path):
    src = ("import torch\n"
           "class N(torch.nn.Module):\n"
           "    def forward(self, x):\n"
           "        y = x.item()  # noqa: F841\n"
           "        z = foo('''a\n"
           "b''', x.item())\n"
           "        return x.item()  # keep this comment\r\n")
    f = tmp_path / "m.py"
    f.write_bytes(src.encode())
    before = run(str(f))
    assert before.returncode == 1 and before.stdout.count("EXL102") >= 3
    r = run("--add-noqa", str(f))
    assert r.returncode == 0, r.stderr
    assert "Added 3 noqa directives." in r.stderr
    data = f.read_bytes()
    text = data.decode()
    compile(text, str(f), "exec")  # still parses
    lines = text.split("\n")
    assert lines[3] == "        y = x.item()  # noqa: EXL102, F841"  # merged, sorted
    assert lines[5] == "b''', x.item())  # noqa: EXL102"  # the statement's last line, not inside the string
    assert lines[6] == "        return x.item()  # keep this comment  # noqa: EXL102\r"  # CRLF kept
    after = run(str(f))
    assert after.returncode == 0, after.stdout
    again = run("--add-noqa", str(f))
    assert "Added 0 noqa directives." in again.stderr and f.read_bytes() == data


def test_add_noqa_keeps_encoding_and_skips_where_no_comment_fits(tmp_path):
    f = tmp_path / "latin.py"
    f.write_bytes(b"# -*- coding: latin-1 -*-\n" + BAD.encode().replace(b"x.item()", b"x.item()  # \xe9"))
    r = run("--add-noqa", str(f))
    assert r.returncode == 0 and "Added 1 noqa directive." in r.stderr
    assert b"# \xe9  # noqa: EXL102" in f.read_bytes()
    assert run(str(f)).returncode == 0
    # a finding whose start and end lines both end inside a string or a backslash continuation
    g = tmp_path / "cont.py"
    g.write_text("import torch\nclass N(torch.nn.Module):\n    def forward(self, x):\n"
                 "        return x.item() + \\\n            1\n")
    before = run(str(g))
    assert before.returncode == 1 and "cont.py:4:" in before.stdout
    text = g.read_text()
    r = run("--add-noqa", str(g))
    assert r.returncode == 0 and "Added 0 noqa directives." in r.stderr
    assert "1 finding(s) skipped: a comment is not legal at the end of their lines" in r.stderr
    assert g.read_text() == text


def test_show_settings_text_and_json(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.exportlint]\nignore = ["EXL3"]\nopset = 17\n')
    (tmp_path / "m.py").write_text(BAD)
    r = run("--show-settings", "--select", "EXL1", ".", cwd=tmp_path)
    assert r.returncode == 0 and "EXL102" not in r.stdout  # nothing linted
    assert "command line (--select)" in r.stdout and "tool.exportlint.ignore" in r.stdout
    j = run("--show-settings", "--format", "json", "--opset", "18", ".", cwd=tmp_path)
    rows = {s["key"]: s for s in json.loads(j.stdout)["settings"]}
    assert rows["opset"] == {"key": "opset", "value": 18, "source": "command line (--opset)"}
    assert rows["ignore"]["value"] == ["EXL3"] and rows["ignore"]["source"].endswith("pyproject.toml:tool.exportlint.ignore")
    assert rows["select"]["source"] == "default" and rows["dynamic-shapes"]["value"] == "auto"
    for k in ("exclude", "target-exporters", "cache-dir", "confirm.timeout", "per-file-ignores"):
        assert k in rows


def test_watch_relints_on_change_and_exits_130_on_ctrl_c(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    f = proj / "m.py"
    f.write_text("x = 1\n")
    out_f, err_f = tmp_path / "out.txt", tmp_path / "err.txt"
    with open(out_f, "w") as out, open(err_f, "w") as err:
        p = subprocess.Popen([sys.executable, "-m", "exportlint", "--no-cache", "--watch", str(proj)],
                             stdout=out, stderr=err, text=True)
    try:
        def wait_for(what):
            deadline = time.time() + 60
            while what not in err_f.read_text() and time.time() < deadline and p.poll() is None:
                time.sleep(0.1)
            assert what in err_f.read_text(), err_f.read_text()

        wait_for("[watch] watching 1 files")
        f.write_text(BAD)
        wait_for("[watch] change detected: re-linting")
        deadline = time.time() + 60
        while "EXL102" not in out_f.read_text() and time.time() < deadline:
            time.sleep(0.1)
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    out, err = out_f.read_text(), err_f.read_text()
    assert p.returncode == 130, err
    assert "Traceback" not in err
    assert "All checks passed" in out and "EXL102" in out  # the first report, then the second


def test_no_progress_output_when_piped(tmp_path):
    for i in range(60):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    r = run(str(tmp_path))
    assert r.returncode == 0
    assert r.stderr == ""


def test_add_noqa_leaves_files_python_cannot_parse(tmp_path):
    f = tmp_path / "broken.py"
    src = "import torch\nclass N(torch.nn.Module):\n    def forward(self, x:\n        return x.item()\n"
    f.write_text(src)
    assert "EXL001" in run(str(f)).stdout
    r = run("--add-noqa", str(f))
    assert r.returncode == 0 and "Added 0 noqa directives." in r.stderr
    assert "1 finding(s) left as they are" in r.stderr
    assert f.read_text() == src


def test_progress_bar_on_a_terminal_only(tmp_path):
    import pty
    import select

    for i in range(60):
        (tmp_path / f"m{i}.py").write_text(f"import torch\ndef f{i}(x):\n    return x + {i}\n")

    def stderr_on_pty(*extra):
        master, slave = pty.openpty()
        e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
        p = subprocess.Popen([sys.executable, "-m", "exportlint", "--no-cache", "-j", "1", *extra, str(tmp_path)],
                             stdout=subprocess.PIPE, stderr=slave, env=dict(e, TERM="xterm-256color"))
        os.close(slave)
        err = b""
        while True:
            r, _, _ = select.select([master], [], [], 60)
            if not r:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            err += chunk
        out = p.communicate(timeout=60)[0]
        os.close(master)
        return p.returncode, out.decode(), err.decode()

    rc, out, err = stderr_on_pty()
    assert rc == 0 and out == "All checks passed (60 files checked).\n"
    assert "60/60" in err and err.endswith("\x1b[2K")  # drawn, then erased (transient)
    for opt in ("-q", "--format=json"):
        rc, out, err = stderr_on_pty(opt)
        assert err == "", (opt, err)


def test_add_noqa_and_watch_refuse_what_they_cannot_do(tmp_path):
    f = tmp_path / "m.py"
    f.write_text(BAD)
    for args in (("--add-noqa", "--fix"), ("--add-noqa", "--diff"), ("--watch", "--fix"), ("--watch", "-")):
        r = run(*args, str(f))
        assert r.returncode == 2 and "cannot be combined" in r.stderr, args
    assert f.read_text() == BAD


def test_show_settings_from_exportlint_toml_named_with_config(tmp_path):
    cfg = tmp_path / "exportlint.toml"
    cfg.write_text('target-exporters = ["onnx-dynamo"]\n[confirm]\ntimeout = 60\n')
    r = run("--show-settings", "--format", "json", "--config", str(cfg), "--extend-exclude", "gen", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = {s["key"]: s for s in json.loads(r.stdout)["settings"]}
    assert rows["target-exporters"] == {"key": "target-exporters", "value": ["onnx-dynamo"],
                                        "source": f"{cfg}:target-exporters"}
    assert rows["confirm.timeout"]["value"] == 60 and rows["confirm.timeout"]["source"] == f"{cfg}:confirm.timeout"
    assert rows["extend-exclude"] == {"key": "extend-exclude", "value": ["gen"], "source": "command line (--extend-exclude)"}
    assert rows["config-file"]["source"] == "command line (--config)"


def test_add_noqa_never_writes_inside_a_multiline_string(tmp_path):
    """A finding whose start and end lines both end inside a triple-quoted string: the comment
    goes after the string's closing quotes (ruff's and flake8's rule), which suppresses it."""
    src = ("import torch\n"
           "class N(torch.nn.Module):\n"
           "    def forward(self, x):\n"
           "        z = foo(x.item(), '''a\n"
           "# noqa: looks like a comment, is text\n"
           "b''',\n"
           "                x)\n"
           "        w = bar(x.item(), f\"\"\"{x}\n"
           "\"\"\")\n"
           "        return z\n")
    f = tmp_path / "m.py"
    f.write_text(src)
    before = run("--format", "concise", str(f))
    assert before.returncode == 1 and "m.py:4:" in before.stdout and "m.py:8:" in before.stdout, before.stdout
    r = run("--add-noqa", str(f))
    assert r.returncode == 0 and "Added 2 noqa directives." in r.stderr, r.stderr
    lines = f.read_text().split("\n")
    assert lines[3:9] == ["        z = foo(x.item(), '''a", "# noqa: looks like a comment, is text",
                          "b''',  # noqa: EXL102", "                x)", "        w = bar(x.item(), f\"\"\"{x}",
                          "\"\"\")  # noqa: EXL102"]
    after = run(str(f))
    assert after.returncode == 0, after.stdout


def test_a_noqa_after_a_multiline_string_covers_its_lines():
    from exportlint.suppress import parse_suppressions

    text = "y = f(a, '''x\ny\nz''')  # noqa: EXL102\nq = 1  # noqa: EXL101\n"
    s = parse_suppressions(text)
    assert s.is_suppressed("EXL102", 1, 1) and s.is_suppressed("EXL102", 2, 2) and s.is_suppressed("EXL102", 3, 3)
    assert not s.is_suppressed("EXL101", 1, 1) and not s.is_suppressed("EXL102", 4, 4)
