"""Reduction of ``__init__`` (exportlint/semantics/reduce.py): a compound statement whose
blocks hold nothing the model reads goes whole (``DROP_EMPTY_BLOCKS``), and a ``...`` written
for a removed statement stays only where its block would be empty without it
(``DROP_DOTS``). The findings, their lines and columns (in ``__init__`` too), and the
attribute facts stay those of the full text."""

from __future__ import annotations

import pytest

from exportlint import engine
from exportlint.config import Config
from exportlint.engine import lint_paths, parse_module
from exportlint.semantics import reduce as red_mod
from exportlint.semantics.index import index_source
from exportlint.semantics.reduce import reduce_source, split_lines

SRC = (
    "import logging\n"
    "import torch\n"
    "import torch.nn as nn\n\n"
    "log = logging.getLogger(__name__)\n\n\n"
    "class Net(nn.Module):\n"
    "    def __init__(self, dim=8, depth=2, verbose=False):\n"
    "        super().__init__()\n"
    "        if verbose:\n"                                 # 11: nothing read inside: goes whole
    "            print('building', dim)\n"
    "            log.info('depth %d', depth)\n"
    "        assert dim > 0\n"                              # 14: removed beside kept statements
    "        self.pool = nn.AdaptiveAvgPool2d((7, 7))\n"   # 15: EXL113 reads it (reported at the call, 34)
    "        for i in range(depth):\n"                      # 16: loop of locals only: goes whole
    "            n = dim * i\n"
    "            m = n + 1\n"
    "        if depth > 1:\n"                               # 19: kept (one branch assigns)
    "            self.scale = dim ** -0.5\n"
    "        else:\n"
    "            print('shallow')\n"                        # 22: the else block keeps one `...`
    "        try:\n"                                        # 23: try/except of locals: goes whole
    "            k = int(dim)\n"
    "        except ValueError:\n"
    "            k = 0\n"
    "        self.temperature = torch.ones(1)\n"            # 27: EXL303 is reported here
    "        x = 1\n"                                       # 28
    "\n"
    "    def helper(self, x):\n"
    "        return x\n\n"
    "    def forward(self, x):\n"
    "        y = self.pool(x) * self.scale\n"              # 34: EXL113
    "        return y / self.temperature\n"
)


def _reduced(src: str, tmp_path, name: str = "m.py") -> str:
    # (the outline is cached with the index by path and text: a new name reads it again)
    fi = index_source(src, str(tmp_path / name), "m", False)
    out = reduce_source(src, fi.outline, [])
    assert out is not None
    return out


def test_blocks_and_dots_in_reduced_init(tmp_path):
    red = _reduced(SRC, tmp_path)
    parse_module(red)
    compile(red, "m.py", "exec")
    rl, sl = split_lines(red), split_lines(SRC)
    assert len(rl) == len(sl)
    line = lambda n: rl[n - 1].strip()
    # the `if verbose:` block, the loop and the try statement went whole: no header is left
    assert "if verbose" not in red and "for i in range" not in red and "try:" not in red
    assert "except" not in red and "for _ in 0" not in red
    assert line(11) in ("", '"""') and line(16) in ("", '"""') and line(23) in ("", '"""')
    # a removed line beside kept statements leaves no `...`
    assert line(14) == "" and line(28) == ""
    # a block that would be empty keeps one `...`, and its header stays
    assert line(19) == "if 0:" and line(21) == "else:" and line(22) == "..."
    # what the model reads stays on its line and column
    assert rl[14] == sl[14] and rl[26] == sl[26]
    # without the two steps the same text keeps headers and `...` lines
    for flag in ("DROP_EMPTY_BLOCKS", "DROP_DOTS"):
        old = getattr(red_mod, flag)
        setattr(red_mod, flag, False)
        try:
            before = _reduced(SRC, tmp_path, f"{flag}.py")
        finally:
            setattr(red_mod, flag, old)
        assert before.count("...") > red.count("...") or before.count(":\n") > red.count(":\n"), flag


def test_reduced_init_gives_the_same_facts(tmp_path):
    import libcst as cst

    from exportlint.semantics.model import SemanticModel

    def facts(text):
        m = SemanticModel(parse_module(text))
        return {k: (a.what, m.imports.resolve(a.value.func) if isinstance(a.value, cst.Call) else None)
                for k, a in m.classes["Net"].attrs.items()}

    assert facts(_reduced(SRC, tmp_path)) == facts(SRC)


@pytest.mark.parametrize("src", [
    SRC,
    # elif chains, while/else, with, nested blocks, one-line blocks, comments between
    ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n"
    "    def __init__(self, a=1):\n        super().__init__()\n"
    "        if a == 1:\n            self.k = nn.AdaptiveMaxPool1d(3)\n"
    "        elif a == 2:\n            print(a)\n        elif a == 3:\n            print(3)\n"
    "        else:\n            self.k = nn.AdaptiveMaxPool1d(4)\n"
    "        while a > 10:\n            a -= 1\n        else:\n            pass\n"
    "        with open('f') as fh:\n            # a comment\n            data = fh.read()\n"
    "        if a: print(a)\n"
    "        for j in range(a):\n            if j:\n                continue\n            q = j\n"
    "        self.n = a\n\n"
    "    def forward(self, x):\n        if self.n:\n            x = x + 1\n        return self.k(x)\n"),
])
def test_findings_and_places_as_full_text(tmp_path, src):
    """The same findings (code, line, column, end) with and without reduction: EXL113 and
    EXL303 are reported inside ``__init__``."""
    p = tmp_path / "m.py"
    p.write_text(src)
    key = lambda f: (f.line, f.column, f.end_line, f.end_column, f.code, f.message)
    r1 = lint_paths([str(p)], Config(), jobs=1, use_cache=False)
    orig = engine._reduced
    engine._reduced = lambda text, path, roots, project, *_: (text, None)
    try:
        r2 = lint_paths([str(p)], Config(), jobs=1, use_cache=False)
    finally:
        engine._reduced = orig
    assert not r1.errors and not r2.errors
    assert sorted(map(key, r1.findings)) == sorted(map(key, r2.findings))
    red = _reduced(src, tmp_path)
    compile(red, "m.py", "exec")
    if src is SRC:
        assert {(f.code, f.line) for f in r1.findings} >= {("EXL113", 34), ("EXL303", 27)}


METHODS = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n        super().__init__()\n        self.w = nn.Linear(2, 2)\n\n"
    "    def init_weights(self, std=0.02):\n        nn.init.normal_(self.w.weight, std=std)\n\n"  # 10: goes
    "    @torch.jit.ignore\n    def group_matcher(self, coarse=False):\n        return dict(stem=r'^w')\n\n"  # 13: goes
    "    @torch.library.custom_op('ns::op', mutates_args=())\n    def op(self):\n        return 1\n\n"  # 17: stays
    "    def helper(self, x):\n        return x.item()\n\n"  # 20: named by forward: kept
    "    def forward(self, x):\n        if self.helper(x) > 0:\n            return self.w(x)\n        return x\n\n\n"
    "class Cfg:\n    def build(self):\n        return Net()\n\n    def other(self):\n        return 1\n\n"
    "    def __repr__(self):\n        return 'Cfg'\n"  # a dunder keeps its header
)


def test_unnamed_methods_go_whole(tmp_path):
    red = _reduced(METHODS, tmp_path, "methods.py")
    compile(red, "methods.py", "exec")
    rl = split_lines(red)
    assert len(rl) == len(split_lines(METHODS))
    assert "init_weights" not in red and "nn.init.normal_" not in red
    # a jit / grad-mode decorator says nothing to the file-wide scans: the method goes; a
    # torch.library one keeps its header; a method kept code names stays whole
    assert "group_matcher" not in red and "torch.jit.ignore" not in red
    assert "def op():" in red and "torch.library.custom_op" in red
    assert "        return x.item()\n" in red
    # a class whose methods all go keeps a statement (the string standing for them)
    assert "def build" not in red and "def other" not in red and "class Cfg:" in red
    assert "def __repr__():" in red
    m = index_source(METHODS, str(tmp_path / "methods2.py"), "m", False)
    assert m.outline is not None
    for flag in ("REMOVE_METHODS",):
        old = getattr(red_mod, flag)
        setattr(red_mod, flag, False)
        try:
            assert "def init_weights():" in _reduced(METHODS, tmp_path, "methods_off.py")
        finally:
            setattr(red_mod, flag, old)


def test_unnamed_methods_same_findings(tmp_path):
    test_findings_and_places_as_full_text(tmp_path, METHODS)


FOLD = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Net(nn.Module):\n"
    "    def __init__(\n"                  # 6
    "            self,\n"
    "            dim: int = 8,\n"
    "            depth: int = 2,\n"
    "    ):\n"                              # 10: header lines 7-10 empty: one string
    "        super().__init__()\n"          # 11: removed (the run goes on)
    "        self.pool = nn.AdaptiveAvgPool2d((7, 7))\n"  # 12: EXL113, kept in place
    "        if depth:\n"                   # 13
    "            self.a = nn.Linear(dim, dim)\n"
    "            print(1)\n"
    "            print(2)\n"
    "            print(3)\n"                # 15-17 removed, then `else:`: no string there
    "        else:\n"
    "            self.a = nn.Identity()\n"
    "        self.b = [\n"                  # 20: a kept statement with an empty line inside
    "\n\n\n"
    "            1]\n"
    "        self.c = nn.ReLU()\n"
    "        x = 1\n        y = 2\n        z = 3\n"   # 26-28 removed, last lines of __init__
    "\n"
    "    def forward(self, x):\n"
    "        return self.pool(self.a(x)) + self.b[0]\n"
)


def test_init_blank_runs_fold_into_one_string(tmp_path):
    red = _reduced(FOLD, tmp_path, "fold.py")
    compile(red, "fold.py", "exec")
    parse_module(red)
    rl, sl = split_lines(red), split_lines(FOLD)
    assert len(rl) == len(sl)
    # lines 7-11 (the header, super().__init__()) are one string at the body's indentation
    assert rl[6] == '        """\n' and rl[10] == '"""\n' and all(not x.strip() for x in rl[7:10])
    assert rl[11] == sl[11]  # the adaptive pool stays on its line
    # before `else:` the emptied lines stay empty (a string there would end the `if`)
    assert all(not x.strip() for x in rl[14:17]) and rl[17].strip() == "else:"
    # the empty lines inside a kept statement's brackets are never touched
    assert rl[19:23] == sl[19:23]
    # the last lines of __init__: a string before the next method, in the class body
    assert rl[25] == '    """\n' and rl[27] == '"""\n' and rl[28] == "\n"
    old = red_mod.FOLD_INIT_BLANKS
    red_mod.FOLD_INIT_BLANKS = False
    try:
        assert '"""' not in _reduced(FOLD, tmp_path, "fold_off.py")
    finally:
        red_mod.FOLD_INIT_BLANKS = old


def test_init_blank_runs_same_findings(tmp_path):
    test_findings_and_places_as_full_text(tmp_path, FOLD)


MERGE = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Net(nn.Module):\n"
    "    def forward(self, x):\n        return helper(x)\n\n"
    "    def a(self):\n        return 1\n\n"          # 9-10
    "    def b(self):\n        return 2\n\n\n"        # 12-13: one string with a()
    "def helper(x):\n    return x.item()\n\n\n"      # 16-17: kept
    "def f1():\n    return Net()\n\n\n"              # 20-21
    "UNUSED = dict(\n    a=1,\n)\n\n\n"              # 24-26
    "def f2():\n    return Net()\n"                  # 29-30: one string from 20 to 30
    "# a comment\n"                                  # 31: stays, and splits
    "def f3():\n    return Net()\n"                  # 32-33
)


def test_removed_neighbours_share_one_string(tmp_path):
    red = _reduced(MERGE, tmp_path, "merge.py")
    compile(red, "merge.py", "exec")
    rl, sl = split_lines(red), split_lines(MERGE)
    assert len(rl) == len(sl)
    assert rl[8] == '    """\n' and rl[12] == '"""\n' and not any(x.strip() for x in rl[9:12])
    assert rl[15:17] == sl[15:17]
    assert rl[19] == '"""\n' and rl[29] == '"""\n' and not any(x.strip() for x in rl[20:29])
    assert rl[30] == "# a comment\n" and rl[31] == '"""\n' and rl[32] == '"""\n'
    old = red_mod.MERGE_REMOVED
    red_mod.MERGE_REMOVED = False
    try:
        assert _reduced(MERGE, tmp_path, "merge_off.py").count('"""') > red.count('"""')
    finally:
        red_mod.MERGE_REMOVED = old


def test_removed_neighbours_same_findings(tmp_path):
    test_findings_and_places_as_full_text(tmp_path, MERGE)
