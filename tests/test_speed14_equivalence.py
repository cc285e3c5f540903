"""Speed changes of stop 26 (issue 9), each checked against the form it replaces.

1. While a file is linted, the tree its syntax check parsed (``engine._python_syntax_check``)
   is lent to ``project.file_tree`` for that file (``project.lend_tree``): a rule or a
   constructor-value question that reads the linted file with the stdlib ``ast`` takes it
   instead of parsing the whole file again. The loan holds only for the very text
   ``file_tree`` would parse, and ends with the file's lint.
"""

from __future__ import annotations

import ast
import glob
import os
import site

import pytest

from exportlint import engine
from exportlint.config import Config
from exportlint.semantics import project as project_mod
from exportlint.semantics.project import Project, file_tree, lend_tree

SRC = """import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, flag=False):
        super().__init__()
        self.flag = flag
        self.w = nn.Parameter(torch.zeros(2, 4, 4))

    def forward(self, x):
        if self.flag:
            x = x + 1
        return x * self.w
"""


def _project(files):
    p = Project(keep_texts=False)
    p.run_files = frozenset(os.path.abspath(f) for f in files)
    return p


def test_lent_tree_answers_file_tree_for_the_same_text(tmp_path):
    f = tmp_path / "m.py"
    f.write_text(SRC)
    proj = _project([f])
    tree = compile(SRC, str(f), "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    lend_tree(proj, str(f), SRC, tree)
    got = file_tree(proj, str(f))
    assert got is tree
    # the very tree a parse here gives
    assert ast.dump(got, include_attributes=True) == ast.dump(ast.parse(SRC, str(f)), include_attributes=True)
    lend_tree(proj, str(f), SRC, None)
    assert "lent" not in project_mod._run_state(proj)


def test_lent_tree_not_taken_for_another_text_or_file(tmp_path):
    f = tmp_path / "m.py"
    g = tmp_path / "g.py"
    f.write_text(SRC)
    g.write_text(SRC)
    proj = _project([f, g])
    other = SRC.replace("x + 1", "x + 2")
    stale = compile(other, str(f), "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    lend_tree(proj, str(f), other, stale)  # a buffer that is not the file's text
    got = file_tree(proj, str(f))
    assert got is not stale and "x + 1" in ast.unparse(got)
    tree = compile(SRC, str(f), "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    lend_tree(proj, str(f), SRC, tree)
    assert file_tree(proj, str(g)) is not tree  # another file: its own parse


def test_no_run_no_loan(tmp_path):
    f = tmp_path / "m.py"
    f.write_text(SRC)
    proj = Project(keep_texts=False)  # an editor's project: nothing is kept between questions
    tree = compile(SRC, str(f), "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    lend_tree(proj, str(f), SRC, tree)
    assert file_tree(proj, str(f)) is not tree


def _run(files, monkeypatch, loan: bool):
    """(findings as dicts, how many file_tree answers were lent trees)."""
    taken = [0]
    real_lend = project_mod.lend_tree

    def lend(project, path, text, tree):
        if loan or tree is None:
            real_lend(project, path, text, tree)

    with monkeypatch.context() as m:
        m.setattr(project_mod, "lend_tree", lend)
        m.setattr(engine, "_COMPILED", set())
        # (the loan serves a file's rules in its own lint; a file whose rules wait for its
        # callees (engine._Light) runs them after the loan ended: test_speed21_equivalence.py)
        m.setattr(engine, "LIGHT_FIRST_ROUND", False)
        # (process-wide memos of other files' facts: each run here starts without, and leaves
        # none behind for later tests, which may count the whole-file parses a run makes)
        m.setattr(project_mod, "_TENSOR_CHECKS", {})
        m.setattr(project_mod, "_PARAM_READS", {})
        real_ft = project_mod.file_tree

        def ft(project, path, keep=True):
            st = project_mod._run_state(project)
            lent = st.get("lent") if st is not None else None
            known = st is not None and os.path.abspath(path) in st["trees"]
            got = real_ft(project, path, keep)
            if not known and lent is not None and got is lent[2]:
                taken[0] += 1
            return got

        m.setattr(project_mod, "file_tree", ft)
        r = engine.lint_paths(files, Config(), jobs=1, use_cache=False, isolate=False)
    assert not r.errors, r.errors
    return [f.to_dict() for f in r.findings], taken[0]


def test_package_findings_the_same_with_and_without_the_loan(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(SRC)
    (tmp_path / "pkg" / "use.py").write_text(
        "from pkg.model import Net\n\n\ndef build():\n    return Net(flag=False)\n")
    files = sorted(str(p) for p in (tmp_path / "pkg").glob("*.py"))
    with_loan, _ = _run(files, monkeypatch, True)
    without, _ = _run(files, monkeypatch, False)
    assert with_loan == without


def _timm_files():
    for sp in site.getsitepackages():
        fs = sorted(glob.glob(os.path.join(sp, "timm", "layers", "*.py")))
        if fs:
            return fs
    return []


@pytest.mark.skipif(not _timm_files(), reason="timm is not installed")
def test_timm_layers_the_same_with_and_without_the_loan(monkeypatch):
    files = _timm_files()
    with_loan, taken = _run(files, monkeypatch, True)
    without, _ = _run(files, monkeypatch, False)
    assert with_loan == without
    assert taken > 0  # the loan was used: files there read their own __init__ statements


# ---------------------------------------------------------------------------------------
# 2. type tests instead of isinstance against libcst's ABC-derived node classes
# ---------------------------------------------------------------------------------------
# ``isinstance(n, cst.Assign)`` runs ``ABCMeta.__instancecheck__`` (a Python call) for every n
# that is not exactly an Assign: ~660k calls on timm's models+layers. The hottest sites test
# ``type(n)`` instead, which answers the same for a concrete libcst class that no class
# derives from. These tests hold that precondition and compare the rewritten helpers with
# their isinstance form on every node of real files.

import libcst as cst  # noqa: E402

from exportlint.checks import sdpa_mask  # noqa: E402
from exportlint.semantics import data_sized, nodes  # noqa: E402

_TESTED = (set(nodes._TARGET_TYPES) | set(sdpa_mask._BINDING_TYPES) | set(data_sized._NESTED_TYPES)
           | set(data_sized._SUSPEND_TYPES)
           | {cst.Not, cst.And, cst.Minus, cst.BooleanOperation, cst.UnaryOperation, cst.Attribute, cst.Call,
              cst.Name, cst.List, cst.Tuple, cst.BinaryOperation, cst.ListComp, cst.SetComp, cst.With, cst.Assign,
              cst.AnnAssign, cst.Return, cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString,
              cst.Dict, cst.WithItem, cst.For})


def _all_subclasses(c):
    out = set()
    for s in c.__subclasses__():
        out |= {s} | _all_subclasses(s)
    return out


def test_type_tested_classes_have_no_subclasses():
    for c in _TESTED:
        assert issubclass(c, cst.CSTNode) and not getattr(c, "__abstractmethods__", None), c
        assert not _all_subclasses(c), (c, _all_subclasses(c))


def _sample_modules():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    paths = sorted(glob.glob(os.path.join(here, "examples", "**", "*.py"), recursive=True))
    paths += sorted(glob.glob(os.path.join(here, "bench", "cases", "**", "*.py"), recursive=True))[:150]
    paths += _timm_files()[:25]
    out = []
    for p in paths:
        try:
            out.append(cst.parse_module(open(p, encoding="utf-8").read()))
        except Exception:
            continue
    return out


def _assigned_names_ref(block):
    out = set()
    for n in nodes.iter_nodes(block):
        if isinstance(n, (cst.AssignTarget, cst.For, cst.CompFor, cst.NamedExpr, cst.AugAssign, cst.AnnAssign)):
            t = n.target
        elif isinstance(n, cst.WithItem) and n.asname is not None:
            t = n.asname.name
        else:
            continue
        for x in nodes.iter_nodes(t):
            if isinstance(x, cst.Name):
                out.add(x.value)
    return out


def test_rewritten_helpers_answer_as_their_isinstance_form():
    mods = _sample_modules()
    assert len(mods) > 20
    seen = 0
    for m in mods:
        for n in nodes.iter_nodes(m):
            for c in _TESTED:
                assert (type(n) is c) == isinstance(n, c)
            if isinstance(n, (cst.FunctionDef, cst.IndentedBlock)):
                assert nodes.assigned_names(n) == _assigned_names_ref(n)
            if isinstance(n, cst.BaseExpression):
                a, b = nodes.literal_value(n), _literal_value_ref(n)
                assert (a is nodes.MISSING and b is nodes.MISSING) or a == b
                if isinstance(n, (cst.BooleanOperation, cst.UnaryOperation, cst.Attribute, cst.Call, cst.Name)):
                    seen += 1
    assert seen > 1000


def _literal_value_ref(node):
    MISSING = nodes.MISSING
    if isinstance(node, cst.Integer):
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return MISSING
    if isinstance(node, cst.Float):
        try:
            return float(node.value.replace("_", ""))
        except ValueError:
            return MISSING
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        try:
            return node.evaluated_value
        except Exception:
            return MISSING
    if isinstance(node, cst.Name):
        return {"True": True, "False": False, "None": None}.get(node.value, MISSING)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        v = _literal_value_ref(node.expression)
        return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else MISSING
    if isinstance(node, (cst.Tuple, cst.List)):
        out = []
        for e in node.elements:
            if not isinstance(e, cst.Element):
                return MISSING
            v = _literal_value_ref(e.value)
            if v is MISSING:
                return MISSING
            out.append(v)
        return tuple(out) if isinstance(node, cst.Tuple) else out
    if isinstance(node, cst.Dict):
        d = {}
        for e in node.elements:
            if not isinstance(e, cst.DictElement):
                return MISSING
            k, v = _literal_value_ref(e.key), _literal_value_ref(e.value)
            if k is MISSING or v is MISSING:
                return MISSING
            try:
                d[k] = v
            except TypeError:
                return MISSING
        return d
    return MISSING
