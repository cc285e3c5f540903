"""The CLI as a user runs it: exit codes, formats, config, suppressions, discovery."""

import json
import subprocess
import sys
import textwrap

import pytest

from exportlint.cli import main

BAD = textwrap.dedent(
    """\
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x * 2
            return x.cuda()
    """
)
GOOD = textwrap.dedent(
    """\
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            return torch.where(x.sum() > 0, x * 2, x)
    """
)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "bad.py").write_text(BAD)
    (tmp_path / "pkg" / "good.py").write_text(GOOD)
    return tmp_path


def run(args, capsys):
    rc = main(args)
    out, err = capsys.readouterr()
    return rc, out, err


def test_exit_codes(proj, capsys):
    assert run(["pkg/good.py", "--no-cache"], capsys)[0] == 0
    rc, out, _ = run(["pkg", "--no-cache"], capsys)
    assert rc == 1 and "EXL101" in out and "EXL301" in out
    assert run(["pkg", "--no-cache", "--exit-zero"], capsys)[0] == 0


def test_missing_path_is_an_error(proj, capsys):
    rc, out, err = run(["does/not/exist.py"], capsys)
    assert rc == 2 and "no such file" in err


def test_text_output_shows_source_line_and_caret(proj, capsys):
    rc, out, _ = run(["pkg/bad.py", "--no-cache", "--no-color"], capsys)
    assert "pkg/bad.py:6:12: EXL101" in out
    assert "6 |         if x.sum() > 0:" in out
    assert "^^^^^^^^^^^ EXL101" in out
    assert "Found 2 problems" in out


def test_json_contract(proj, capsys):
    rc, out, _ = run(["pkg/bad.py", "--no-cache", "--format", "json"], capsys)
    data = json.loads(out)
    assert [d["code"] for d in data] == ["EXL101", "EXL301"]
    d = data[0]
    assert set(d) >= {"code", "severity", "path", "line", "column", "end_line", "end_column", "message", "exporters", "fix"}
    assert (d["line"], d["column"], d["end_line"], d["end_column"]) == (6, 12, 6, 23)
    assert d["severity"] == "error"
    assert set(d["exporters"]) <= {"export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"}


def test_lsp_contract(proj, capsys):
    rc, out, _ = run(["pkg/bad.py", "--no-cache", "--format", "lsp"], capsys)
    data = json.loads(out)
    (uri, diags), = data.items()
    assert uri == (proj / "pkg" / "bad.py").resolve().as_uri()
    d = diags[0]
    assert d["range"] == {"start": {"line": 5, "character": 11}, "end": {"line": 5, "character": 22}}
    assert d["severity"] == 1 and d["code"] == "EXL101" and d["source"] == "exportlint"
    assert d["codeDescription"]["href"].endswith("rules/EXL101.md")


def test_github_annotations(proj, capsys):
    rc, out, _ = run(["pkg/bad.py", "--no-cache", "--format", "github"], capsys)
    assert out.splitlines()[0].startswith("::error file=pkg/bad.py,line=6,col=12,")
    assert "title=EXL101::" in out.splitlines()[0]


def test_concise_and_output_file(proj, capsys):
    rc, out, _ = run(["pkg/bad.py", "--no-cache", "--format", "concise", "-o", "report.txt"], capsys)
    assert rc == 1 and out == ""
    text = (proj / "report.txt").read_text()
    assert text.startswith("pkg/bad.py:6:12: EXL101 ")


def test_select_ignore_and_statistics(proj, capsys):
    rc, out, _ = run(["pkg", "--no-cache", "--select", "EXL3", "--format", "concise"], capsys)
    assert "EXL301" in out and "EXL101" not in out
    rc, out, _ = run(["pkg", "--no-cache", "--ignore", "EXL101,EXL301"], capsys)
    assert rc == 0
    rc, out, _ = run(["pkg", "--no-cache", "--statistics"], capsys)
    assert "EXL101" in out and "Total: 2" in out
    rc, out, err = run(["pkg", "--select", "EXL999"], capsys)
    assert rc == 2 and "EXL999" in err


def test_config_file_and_errors(proj, capsys):
    (proj / "pyproject.toml").write_text('[tool.exportlint]\nignore = ["EXL301"]\n')
    rc, out, _ = run(["pkg", "--no-cache", "--format", "concise"], capsys)
    assert "EXL301" not in out and "EXL101" in out
    (proj / "pyproject.toml").write_text('[tool.exportlint]\nselct = ["EXL1"]\n')
    rc, out, err = run(["pkg"], capsys)
    assert rc == 2 and "pyproject.toml" in err and "selct" in err
    (proj / "pyproject.toml").write_text('[tool.exportlint]\ntarget-exporters = ["onnx-legacyy"]\n')
    rc, out, err = run(["pkg"], capsys)
    assert rc == 2 and "target-exporters" in err
    (proj / "pyproject.toml").write_text('[tool.exportlint]\nopset = "18"\n')
    rc, out, err = run(["pkg"], capsys)
    assert rc == 2 and "opset" in err


def test_per_file_ignores_and_excludes(proj, capsys):
    (proj / "pyproject.toml").write_text(
        '[tool.exportlint]\nper-file-ignores = {"pkg/bad.py" = ["EXL1"]}\nextend-exclude = ["skipme"]\n'
    )
    (proj / "skipme").mkdir()
    (proj / "skipme" / "x.py").write_text(BAD)
    rc, out, _ = run([".", "--no-cache", "--format", "concise"], capsys)
    assert "EXL101" not in out and "EXL301" in out and "skipme" not in out
    # an explicitly named file is linted even if excluded, unless --force-exclude
    rc, out, _ = run(["skipme/x.py", "--no-cache", "--format", "concise"], capsys)
    assert "skipme/x.py" in out
    rc, out, _ = run(["skipme/x.py", "--no-cache", "--force-exclude"], capsys)
    assert rc == 0
    # --extend-exclude adds to the list, --exclude replaces it
    rc, out, _ = run([".", "--no-cache", "--format", "concise", "--extend-exclude", "pkg"], capsys)
    assert "pkg/" not in out and "skipme" not in out
    (proj / "venv").mkdir()
    (proj / "venv" / "y.py").write_text(BAD)
    rc, out, _ = run([".", "--no-cache", "--format", "concise"], capsys)
    assert "venv/" not in out  # a default exclude
    rc, out, _ = run([".", "--no-cache", "--format", "concise", "--exclude", "pkg"], capsys)
    assert "pkg/" not in out and "venv/y.py" in out and "skipme" not in out  # extend-exclude still applies


def test_suppressions(proj, capsys):
    src = BAD.replace("if x.sum() > 0:", "if x.sum() > 0:  # noqa: EXL101").replace(
        "return x.cuda()", "return x.cuda()  # exportlint: ignore[EXL301]"
    )
    (proj / "pkg" / "bad.py").write_text(src)
    assert run(["pkg/bad.py", "--no-cache"], capsys)[0] == 0
    (proj / "pkg" / "bad.py").write_text("# exportlint: ignore-file[EXL101, EXL301]\n" + BAD)
    assert run(["pkg/bad.py", "--no-cache"], capsys)[0] == 0
    (proj / "pkg" / "bad.py").write_text(BAD.replace("if x.sum() > 0:", "if x.sum() > 0:  # noqa: EXL101, EXL777"))
    rc, out, _ = run(["pkg/bad.py", "--no-cache", "--format", "concise"], capsys)
    assert "EXL002" in out and "EXL777" in out and "EXL101" not in out


def test_stdin(proj, capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", type("S", (), {"buffer": io.BytesIO(BAD.encode())})())
    rc, out, _ = run(["-", "--stdin-filename", "model.py", "--format", "concise", "--no-cache"], capsys)
    assert rc == 1 and out.startswith("model.py:6:12: EXL101")


def test_rule_docs_commands(capsys):
    rc, out, _ = run(["rule", "EXL101"], capsys)
    assert rc == 0 and "EXL101" in out
    rc, out, _ = run(["rules"], capsys)
    assert rc == 0 and "EXL101" in out and "EXL301" in out
    rc, out, err = run(["rule", "EXL999"], capsys)
    assert rc == 2


def test_cache_roundtrip(proj, capsys):
    rc1, out1, _ = run(["pkg", "--format", "json"], capsys)
    assert (proj / ".exportlint_cache").is_dir()
    rc2, out2, _ = run(["pkg", "--format", "json"], capsys)
    assert (rc1, out1) == (rc2, out2)
    # editing the file invalidates its entry
    (proj / "pkg" / "bad.py").write_text(GOOD)
    rc3, out3, _ = run(["pkg", "--format", "json"], capsys)
    assert rc3 == 0 and json.loads(out3) == []


def test_version_and_module_entry_point():
    r = subprocess.run([sys.executable, "-m", "exportlint", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("exportlint ")


def test_static_path_never_imports_torch(proj):
    # the files are linted in forked worker processes: an import hook (inherited by them)
    # records any torch import there, the parent's sys.modules is checked too
    code = (
        "import os, sys, exportlint.cli as c\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'torch':\n"
        "            open('torch-imported', 'a').write(f'{os.getpid()} {name}\\n')\n"
        "        return None\n"
        "sys.meta_path.insert(0, Block())\n"
        "rc = c.main(['pkg', '--no-cache', '--format', 'json'])\n"
        "assert 'torch' not in sys.modules, sorted(m for m in sys.modules if m.startswith('torch'))\n"
        "assert not os.path.exists('torch-imported'), open('torch-imported').read()\n"
        "print('rc', rc)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=proj)
    assert r.returncode == 0, r.stderr
    assert "rc 1" in r.stdout
