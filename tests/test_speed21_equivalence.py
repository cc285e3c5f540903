"""Speed changes of session 31 (issue 9), each checked against the form it replaces.

1. ``reduce.code_lines`` scans for quotes and ``#`` only (``_STRINGS_AT_QUOTE``), adds a
   string's one or two prefix letters itself, and matches a triple-quoted body without a lazy
   ``[\\s\\S]*?``: the same lines as the one ``_STRINGS.sub`` it replaces.
2. ``SemanticModel.call_returns`` (``model.ReadReturns``) logs the questions an analysis asks
   of its callees' result kinds, with their answers.
3. The first round of a one-worker project run (callers first): a file whose analysis asks the
   result kind of a call into a file analysed after it, and gets none, keeps its model and runs
   its rules in the next round, on that model when the new kinds answer its questions as
   before, else afresh (``engine._Light``). Findings are those of every file's rules running
   in every analysis (``engine.LIGHT_FIRST_ROUND = False``, the default since the lead's
   measurement: the kept models cost more CPU time and memory than the instructions they save;
   these tests turn it on).
"""

from __future__ import annotations

import glob
import os
import site
import sys

import pytest

from exportlint import engine
from exportlint.config import Config
from exportlint.semantics import project as project_mod
from exportlint.semantics.model import ReadReturns
from exportlint.semantics.reduce import _code_lines_regex, code_lines

# ---------------------------------------------------------------------------------------
# 1. code_lines
# ---------------------------------------------------------------------------------------

EDGE_TEXTS = [
    "x = 'a'  # c\ny = \"b\"\n",
    'x = f"a{b}" + rb"\\x00" + Rb\'q\' + BR"z" + u"u" + fr"{x}"\n',
    'if"a" in x: pass\nfor"x" in y: pass\nx = or"q"\n',  # a keyword's last letter taken as prefix
    'def f():\n    """doc\n    more "quoted" text\n    """\n    return 1\n',
    "s = '''a\n'' b ' c\n'''\nt = 1\n",
    'x = """ends with a quote""""\n',
    'x = "unterminated\ny = 2  # after\n',
    "x = '''never closed\n\ny = 3\n",
    'x = "esc \\" still" + \'it\\\'s\'  # "not a string"\n',
    "x = 1 # only a comment with 'quotes' and \"more\"\n",
    'brf"x"\nxbr"y"\n',
    "a = r'\\'\nb = 2\n",
    '# first\n"""module\ndoc"""\nimport os\n',
    "x = 'a'\r\ny = '''b\r\nc'''\r\n",
]


@pytest.mark.parametrize("text", EDGE_TEXTS)
def test_code_lines_as_the_regex_substitution(text):
    assert code_lines(text) == _code_lines_regex(text)


def _installed(pkg, sub=""):
    for sp in site.getsitepackages():
        fs = sorted(glob.glob(os.path.join(sp, pkg, sub, "**", "*.py"), recursive=True))
        if fs:
            return fs
    return []


@pytest.mark.skipif(not _installed("timm"), reason="timm is not installed")
def test_code_lines_as_the_regex_substitution_on_installed_code():
    files = _installed("timm") + _installed("torchvision")[:200] + _installed("transformers", "models/bert")
    assert len(files) > 100
    for f in files:
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        assert code_lines(text) == _code_lines_regex(text), f


# ---------------------------------------------------------------------------------------
# 2. the questions log
# ---------------------------------------------------------------------------------------


def test_read_returns_logs_each_question_and_its_answer():
    plain = {"a.f": "tensor", "b.g|sized": "", "c.h|sized": "0"}
    r = ReadReturns(plain)
    assert r.get("a.f") == "tensor" and r.get("zz", "d") == "d"
    assert "b.g|sized" in r and "nope" not in r
    assert bool(r) and len(r) == 3
    assert r.any_suffix("|sized")
    with pytest.raises(KeyError):
        r["missing"]
    assert r.log == {"a.f": "tensor", "zz": None, "b.g|sized": "", "nope": None, ReadReturns.BOOL: True,
                     ReadReturns.LEN: 3, ReadReturns.ANY + "|sized": True, "missing": None}
    # every question answers on the plain dict as it did
    assert all(ReadReturns.answer(q, plain) == a for q, a in r.log.items())
    list(r.items())
    assert r.log[ReadReturns.ALL] == sorted(plain.items())
    # another dict answers differently where it differs
    assert ReadReturns.answer("a.f", {"a.f": "unknown"}) == "unknown"
    assert ReadReturns.answer(ReadReturns.BOOL, {}) is False
    assert ReadReturns.answer(ReadReturns.ANY + "|sized", {"c.h|sized": ""}) is False
    # pickled (to a worker and back): a plain dict
    import pickle

    assert type(pickle.loads(pickle.dumps(r))) is dict


# ---------------------------------------------------------------------------------------
# 3. rules of the first round after the callees answered
# ---------------------------------------------------------------------------------------

MODEL = """import torch
from torch import nn
from pkg.helpers import pad_same, check_batch, to_list


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3)

    def forward(self, x):
        x = pad_same(x)
        check_batch(x)
        if x.sum() > 0:
            x = x * 2
        n = int(x.shape[-1] / 2)
        return self.conv(x)[..., :n], to_list(x)
"""

OTHER = """import torch
from torch import nn
from pkg.helpers import check_batch


class Head(nn.Module):
    def forward(self, x):
        check_batch(x)
        return x.numpy()
"""

HELPERS = """import torch
import torch.nn.functional as F


def pad_same(x):
    if x.shape[-1] % 2:
        return F.pad(x, (0, 1))
    return x


def check_batch(x):
    assert x.shape[0] > 0


def to_list(x):
    return x.tolist()
"""


def _package(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    (tmp_path / "pkg" / "other.py").write_text(OTHER)
    (tmp_path / "pkg" / "helpers.py").write_text(HELPERS)
    return sorted(str(p) for p in (tmp_path / "pkg").glob("*.py"))


def _run(files, monkeypatch, light: bool):
    """(findings as dicts, files kept, files finished on their kept model)."""
    kept, finished = [], []
    real_keep = engine._Light.keep

    def keep(self, path, *a):
        kept.append(os.path.basename(path))
        return real_keep(self, path, *a)

    real_worker = engine._worker_lint

    def worker(item):
        if not isinstance(item, str) and len(item) > 3 and item[3] == "finish":
            finished.append(os.path.basename(item[0]))
        return real_worker(item)

    with monkeypatch.context() as m:
        m.setattr(engine, "LIGHT_FIRST_ROUND", light)
        m.setattr(engine._Light, "keep", keep)
        m.setattr(engine, "_worker_lint", worker)
        m.setattr(engine, "_COMPILED", set())
        m.setattr(project_mod, "_TENSOR_CHECKS", {})
        m.setattr(project_mod, "_PARAM_READS", {})
        r = engine.lint_paths(files, Config(), jobs=1, use_cache=False, isolate=False)
    assert not r.errors, r.errors
    assert engine._LIGHT[0] is None  # nothing kept after the run
    return [f.to_dict() for f in r.findings], kept, finished


def test_package_findings_the_same_with_rules_after_the_callees(tmp_path, monkeypatch):
    files = _package(tmp_path)
    light, kept, finished = _run(files, monkeypatch, True)
    full, kept_off, _ = _run(files, monkeypatch, False)
    assert light == full
    assert kept_off == []
    # both callers ask for a helper's result kind before helpers.py is analysed: model.py's
    # kinds change (pad_same answers), other.py's do not (check_batch returns nothing)
    assert sorted(kept) == ["model.py", "other.py"]
    assert finished == ["other.py"]
    lines = {(os.path.basename(f["path"]), f["line"]) for f in light}
    assert ("model.py", 14) in lines and ("other.py", 9) in lines  # the rules ran in both


def test_package_findings_the_same_in_a_worker_process(tmp_path, monkeypatch):
    files = _package(tmp_path)
    with monkeypatch.context() as m:
        m.setattr(engine, "_COMPILED", set())
        m.setattr(engine, "LIGHT_FIRST_ROUND", True)
        forked = engine.lint_paths(files, Config(), jobs=1, use_cache=False, isolate=True)
        m.setattr(engine, "LIGHT_FIRST_ROUND", False)
        plain = engine.lint_paths(files, Config(), jobs=1, use_cache=False, isolate=True)
    assert [f.to_dict() for f in forked.findings] == [f.to_dict() for f in plain.findings]
    assert not forked.errors


def test_a_helper_read_by_a_waiting_callers_rules_is_parsed_once(tmp_path, monkeypatch):
    # model.py's rules wait; helpers.py's syntax check parses it, and that tree stays for the
    # stdlib-tree questions of model.py's rules (project.keep_lent) instead of a second parse
    files = _package(tmp_path)
    parsed: list[str] = []
    real_check = engine._python_syntax_check
    import ast

    real_ast_parse = ast.parse

    def check(text, path):
        parsed.append(os.path.basename(path))
        return real_check(text, path)

    def ast_parse(src, filename="<unknown>", *a, **k):
        if isinstance(filename, str) and filename.endswith("helpers.py") and \
                sys._getframe(1).f_code.co_name == "file_tree":
            parsed.append("file_tree:" + os.path.basename(filename))
        return real_ast_parse(src, filename, *a, **k)

    monkeypatch.setattr(engine, "_python_syntax_check", check)
    monkeypatch.setattr(ast, "parse", ast_parse)
    light, kept, _ = _run(files, monkeypatch, True)
    assert "model.py" in kept
    assert parsed.count("helpers.py") == 1 and "file_tree:helpers.py" not in parsed, parsed
    # and without the tree kept, model.py's rules parse it again
    parsed.clear()
    monkeypatch.setattr(project_mod, "keep_lent", lambda project, path: None)
    _run(files, monkeypatch, True)
    assert parsed.count("helpers.py") == 1 and "file_tree:helpers.py" in parsed, parsed


@pytest.mark.skipif(not _installed("timm", "layers"), reason="timm is not installed")
def test_timm_layers_the_same_with_rules_after_the_callees(monkeypatch):
    files = sorted(glob.glob(os.path.join(os.path.dirname(_installed("timm", "layers")[0]), "*.py")))
    light, kept, finished = _run(files, monkeypatch, True)
    full, _, _ = _run(files, monkeypatch, False)
    assert light == full
    assert kept and finished
