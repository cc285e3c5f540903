"""``ctor_values.option_off`` made cheap (stop 26, issue 9): last stop's P-OPTOFF class cost 40%
of the cold run on timm, for no finding there. The rewrite keeps its answers; each shortcut is
checked here against the walk it replaces, on real code (torch's own ``nn`` modules and this
repository's cases), and the whole question end to end on small packages:

- the text filters (``self.<attr> = <name>`` and a ``False`` default) pass every attribute the
  stdlib ``ast`` says is such an option;
- ``_self_writes`` (statement lists only) finds the writes ``ast.walk`` of ``__init__`` finds;
- ``_attrs_written_in`` (statement lists, ``setattr`` only when the text names it) sees every
  kind of write (test_speed11_equivalence checks it against the walk of every node);
- ``_calls_named`` (only the top-level statements whose lines hold the name then ``(``) finds,
  in order, the calls the walk of the whole module finds;
- ``option_off`` still turns off an option that every construction leaves False, and not one
  that a construction, a setter or a subclass turns on.
"""

from __future__ import annotations

import ast
import glob
import os

import pytest
from conftest import lint_package

from exportlint.semantics import ctor_values as cv

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _corpus() -> list[str]:
    files = sorted(glob.glob(os.path.join(HERE, "bench", "cases", "**", "*.py"), recursive=True))
    files += sorted(glob.glob(os.path.join(HERE, "exportlint", "**", "*.py"), recursive=True))
    try:
        import torch.nn.modules as mods

        files += sorted(glob.glob(os.path.join(os.path.dirname(mods.__file__), "*.py")))
    except ImportError:
        pass
    out = []
    for p in files:
        try:
            with open(p, encoding="utf-8") as f:
                text = f.read()
            out.append((p, text, ast.parse(text)))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
    return out


CORPUS = _corpus()


def _old_self_writes(init, attr):
    found = []
    for node in ast.walk(init):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self" \
                    and t.attr == attr:
                found.append(node)
    return found


def _inits(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            init = cv.init_of(node)
            if init is not None:
                yield node, init


def test_corpus_is_real_code():
    assert len(CORPUS) > 50
    assert sum(1 for _, _, t in CORPUS for _ in _inits(t)) > 100


def test_attrs_written_skips_calls_only_where_no_setattr_is_written():
    # (test_speed11_equivalence checks the statement walk against the walk of every node)
    n = 0
    for path, text, tree in CORPUS:
        assert cv._attrs_written_in(tree, "setattr" in text) == cv._attrs_written_in(tree, True), path
        n += "setattr" in text
    assert n > 0


def test_attrs_written_sees_every_kind_of_write():
    src = """
class A:
    def __init__(self, v):
        self.own = v
        self.aug += 1
        def later():
            self.nested_own = 1
    def set(self, v):
        self.setter = v
        (self.tup, other.t2) = v, v
        self.ann: int = v
        try:
            pass
        except E:
            self.handler = 1
        finally:
            self.fin = 1
        match v:
            case 1:
                self.case = 1
        setattr(self, "by_setattr", v)
"""
    tree = ast.parse(src)
    got = cv._attrs_written_in(tree, True)
    assert {"aug", "setter", "tup", "t2", "ann", "handler", "fin", "case", "by_setattr"} <= got
    assert "own" not in got and "nested_own" not in got


def test_self_writes_equal_the_full_walk():
    n = 0
    for path, text, tree in CORPUS:
        for _, init in _inits(tree):
            attrs = {t.attr for node in ast.walk(init) for t in getattr(node, "targets", [getattr(node, "target", None)])
                     if isinstance(t, ast.Attribute)}
            for attr in attrs:
                assert cv._self_writes(init).get(attr, []) == _old_self_writes(init, attr) or \
                    sorted(map(id, cv._self_writes(init).get(attr, []))) == sorted(map(id, _old_self_writes(init, attr))), \
                    (path, attr)
                n += 1
    assert n > 100


def test_text_filters_pass_every_false_default_option():
    n = 0
    for path, text, tree in CORPUS:
        for cls, init in _inits(tree):
            pos, defaults, _ = cv._params(init)
            for attr in set(cv._self_writes(init)):
                how, what = cv.attr_source(init, attr)
                if how == "param" and defaults.get(what, cv.UNKNOWN) is False:
                    names = [m.group(1) for m in cv._param_write(attr).finditer(text)]
                    assert what in names, (path, cls.name, attr)
                    assert cv._false_default(what).search(text), (path, cls.name, attr)
                    n += 1
    src = "class M:\n    def __init__(self, a=(False), b: 'bool' = False, *, c=False):\n" \
          "        self.a = (a)\n        self.b = b  # note\n        self.c = c; self.d = 1\n"
    tree = ast.parse(src)
    _, init = next(_inits(tree))
    for attr in "abc":
        how, what = cv.attr_source(init, attr)
        assert how == "param"
        assert what in [m.group(1) for m in cv._param_write(attr).finditer(src)]
        assert cv._false_default(what).search(src)
    assert n > 0


def test_mention_count_stops_past_the_cap():
    from exportlint.semantics.project import Project

    paths = [p for p, _, _ in CORPUS]
    proj = Project(paths)
    proj.run_files = frozenset(os.path.abspath(p) for p in paths)
    for word in ("import", "Module", "forward", ".weight", "AdaptiveAvgPool2d", "no_such_word_anywhere"):
        for cap in (0, 3, 24, 10_000):
            want = sum(1 for p in paths if word in open(p, encoding="utf-8").read())
            assert cv.mention_count(proj, word, cap) == min(want, cap + 1), (word, cap)
        assert len(cv._mentioning(proj, word)) == want
        assert cv.mention_count(proj, word, 3) == min(want, 4)


def test_call_marks():
    text = "x = Block(1)\ny = mod . Block  (2)\nz = MyBlock(3)\nw = Blocks(4)\nv = (Block)(5)\nu = Block\\\n(6)\n"
    assert cv._call_marks(text, "Block") == [(1, False), (2, True), (3, False), (5, False), (6, False)]
    assert cv._call_marks("Block", "Block") == [] and cv._call_marks("", "Block") == []


def _old_calls_named(tree, cls):
    return [(c, s) for c, s in cv._calls_with_scope(tree)
            if (cv.ast_dotted(c.func) or "").rsplit(".", 1)[-1] == cls]


def test_calls_named_equals_the_full_walk():
    """Through the outline's spans (each top-level statement parsed alone) and through the
    whole tree (a file with a module-level call outside them, or no outline), entering only the
    nodes whose lines hold a place ``_call_marks`` finds in the text."""
    from exportlint.semantics.project import Project

    paths = [p for p, _, _ in CORPUS]
    proj = Project(paths)
    proj.run_files = frozenset(os.path.abspath(p) for p in paths)
    n = partial = 0
    for path, text, tree in CORPUS:
        sfi = proj.index_path(path)
        names = {(cv.ast_dotted(c.func) or "").rsplit(".", 1)[-1] for c in ast.walk(tree) if isinstance(c, ast.Call)}
        for fi in (sfi, None):  # (the outline's spans first: a parsed tree is taken when there is one)
            for cls in sorted(n for n in names if n and n[0].isupper())[:8]:
                lines = sorted({ln for ln, _ in cv._call_marks(text, cls)})
                if fi is not None:
                    partial += cv._top_level_of(proj, os.path.abspath(path), sfi, lines) is not None
                got = [(c, s) for c, s, _ in cv._calls_named(proj, path, fi, cls, lines)]
                proj.__dict__.pop("_ctor_state", None)
                want = _old_calls_named(tree, cls)
                assert [ast.dump(c) for c, _ in got] == [ast.dump(c) for c, _ in want], (path, cls)
                assert [s is None or (s[0].name, ast.dump(s[1])) for _, s in got] == \
                    [s is None or (s[0].name, ast.dump(s[1])) for _, s in want], (path, cls)
                n += 1
    assert n > 100 and partial > 100


BLOCK = """import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, balance=False):
        super().__init__()
        self.balance = balance
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        if self.balance:
            if x.sum() > 0:
                x = x * 2
        return self.proj(x)
"""


def _package(tmp_path, builder: str, extra: str = ""):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "block.py").write_text(BLOCK + extra)
    (pkg / "net.py").write_text("from torch import nn\nfrom pkg.block import Block\n\n\n" + builder)
    return [str(p) for p in sorted(pkg.glob("*.py"))]


NET = """class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block(8{args})
        self.b = (Block)(8)

    def forward(self, x):
        return self.b(self.a(x))
"""


@pytest.mark.parametrize("args, extra, fires", [
    ("", "", False),                       # every construction leaves it False: the arm is off
    (", balance=False", "", False),
    (", balance=True", "", True),          # a construction turns it on
    (", True", "", True),                  # positionally
    ("", "\n\ndef enable(m):\n    m.balance = True\n", True),   # a setter elsewhere
    ("", "\n\nclass Sub(Block):\n    pass\n", True),            # a subclass may be built otherwise
])
def test_option_off_end_to_end(tmp_path, args, extra, fires):
    files = _package(tmp_path, NET.replace("{args}", args), extra)
    findings = lint_package(files)
    hits = [f for f in findings if f.path.endswith("block.py") and f.line == 13]
    assert bool(hits) == fires, [(f.path, f.line, f.code) for f in findings]
