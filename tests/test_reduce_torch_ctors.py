"""Cuts of issue 9's cold time that must change no finding: torch.nn constructors written
without their arguments in a reduced ``__init__`` (``reduce._silent_modules``), and the
statement-only walks (``nodes.iter_statements``) that replace whole-tree walks in rules."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from exportlint.config import Config
from exportlint.engine import lint_paths

ROOT = Path(__file__).resolve().parent.parent


def _corpus() -> list[Path]:
    files = sorted((ROOT / "examples").glob("*.py")) + sorted((ROOT / "bench" / "cases").rglob("*.py"))
    files += sorted((ROOT / "tests" / "fixtures").rglob("*.py"))
    return [p for p in files if p.is_file()]


ODD_STATEMENTS = '''\
def f(x, y=lambda z: z + 1):
    a, b = x, y
    @staticmethod
    def inner(q):
        c, d = q, q
        class K:
            e, g = 1, 2
        return c
    try:
        h, i = 1, 2
    except ValueError:
        j, k = 3, 4
    else:
        m = 5
    finally:
        n, o = 6, 7
    for p in x:
        r, s = p, p
    else:
        t, u = 1, 1
    while x:
        v, w = 0, 0; aa, bb = 1, 1
    with x as y2:
        cc, dd = 1, 2
    if x: ee, ff = 1, 2
    elif y: gg, hh = 3, 4
    else: ii, jj = 5, 6
    match x:
        case [1, 2]:
            kk, ll = 1, 2
        case _:
            pass
    try:
        pass
    except* OSError:
        mm, nn = 1, 2
    return [zz for zz in x if (ww := zz)]
'''


def test_iter_statements_gives_the_statements_of_iter_nodes():
    from exportlint.semantics.nodes import iter_nodes, iter_statements

    stmt = (cst.BaseStatement, cst.BaseSmallStatement)
    texts = [ODD_STATEMENTS] + [p.read_text(encoding="utf-8") for p in _corpus()]
    n_checked = 0
    for text in texts:
        try:
            module = cst.parse_module(text)
        except Exception:
            continue
        for node in [module] + [n for n in iter_nodes(module) if isinstance(n, (cst.FunctionDef, cst.ClassDef))]:
            full = [n for n in iter_nodes(node) if isinstance(n, stmt)]
            fast = [n for n in iter_statements(node) if isinstance(n, stmt)]
            assert [id(n) for n in fast] == [id(n) for n in full]
            n_checked += 1
    assert n_checked > 100


def _parallel_reference(node):
    """The walk ``checks.shapes._parallel_assignments`` made before (``CSTNode.children``)."""
    for child in node.children:
        if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(child, cst.Assign) and len(child.targets) == 1:
            t, v = child.targets[0].target, child.value
            if (isinstance(t, (cst.Tuple, cst.List)) and isinstance(v, (cst.Tuple, cst.List))
                    and len(t.elements) == len(v.elements)
                    and not any(isinstance(el, cst.StarredElement) for el in (*t.elements, *v.elements))):
                for te, ve in zip(t.elements, v.elements):
                    if isinstance(te.value, cst.Name):
                        yield te.value.value, ve.value
            continue
        yield from _parallel_reference(child)


def test_parallel_assignments_as_before():
    from exportlint.checks.shapes import _parallel_assignments
    from exportlint.semantics.nodes import iter_nodes

    module = cst.parse_module(ODD_STATEMENTS)
    fn = next(n for n in iter_nodes(module) if isinstance(n, cst.FunctionDef))
    got = [(k, id(v)) for k, v in _parallel_assignments(fn.body)]
    assert [k for k, _ in got] == ["a", "b", "h", "i", "j", "k", "n", "o", "r", "s", "t", "u", "v", "w", "aa", "bb",
                                   "cc", "dd", "ee", "ff", "gg", "hh", "ii", "jj", "kk", "ll", "mm", "nn"]
    texts = [ODD_STATEMENTS] + [p.read_text(encoding="utf-8") for p in _corpus()]
    for text in texts:
        try:
            module = cst.parse_module(text)
        except Exception:
            continue
        for fn in (n for n in iter_nodes(module) if isinstance(n, cst.FunctionDef)):
            assert [(k, id(v)) for k, v in _parallel_assignments(fn.body)] == \
                [(k, id(v)) for k, v in _parallel_reference(fn.body)]


MODEL = '''\
import torch
import torch.nn as nn
from torch.nn import Linear


class Block(nn.Module):
    def __init__(self, dim, i):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return self.fc(x)


class Net(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.conv = nn.Conv2d(3, dim, 3, padding=1, padding_mode="circular")
        self.up = nn.Upsample(scale_factor=2, mode="bilinear")
        self.pool = nn.AdaptiveAvgPool2d((7, 7))
        self.norm = nn.RMSNorm(dim)
        self.proj = Linear(dim, dim, bias=False)
        self.act = nn.GELU(approximate="tanh")
        self.bn = nn.BatchNorm2d(dim, eps=1e-3)
        self.rnn = nn.LSTM(dim, dim, batch_first=True)
        self.pools = nn.Sequential(nn.AdaptiveAvgPool2d(3), nn.AdaptiveAvgPool2d(3))
        self.odd = nn.Linear(dim, int(torch.ones(1).item()))
        self.unread = nn.Conv1d(dim, dim, 1)
        self.blocks = nn.Sequential(*[Block(dim, i) for i in range(2)])
        self.layers = nn.ModuleList([nn.Linear(dim, dim), Block(dim, 0)])

    def unused(self, x):
''' + "        x = x + 1\n" * 40 + '''\
        return x

    def forward(self, x):
        x = self.up(self.pool(self.act(self.bn(self.conv(x)))))
        x = self.pools(self.norm(x))
        y, _ = self.rnn(x.flatten(2))
        for layer in self.layers:
            y = layer(y)
        return self.blocks(self.proj(y)) + self.odd(y)
'''

RUN = '''\
import torch
from ctorpkg.model import Net

torch.onnx.export(Net(), (torch.ones(1, 3, 8, 8),), "m.onnx", opset_version=9, dynamo=False,
                  dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
'''


@pytest.mark.parametrize("opset", [None, 9])
def test_torch_constructors_without_arguments_change_no_finding(tmp_path, opset):
    import exportlint.engine as engine
    from exportlint.semantics.index import index_source
    from exportlint.semantics.reduce import reduce_source

    pkg = tmp_path / "ctorpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "model.py").write_text(MODEL)
    (pkg / "run.py").write_text(RUN)
    fi = index_source(MODEL, str(pkg / "model.py"), "ctorpkg.model", False)
    red = reduce_source(MODEL, fi.outline, [])
    assert red is not None
    # records that can give no finding lose their arguments; the others, adaptive pooling,
    # Sequential and a constructor whose arguments call torch keep them
    for short in ("self.proj = Linear()", "self.act = nn.GELU()", "self.bn = nn.BatchNorm2d()",
                  "self.conv = nn.Conv2d()",
                  "self.blocks = nn.Sequential(*[Block() for _ in 0])",
                  "self.layers = nn.ModuleList([nn.Linear(), Block()])"):
        assert short in red, short
    # (nn.LSTM keeps them: checks.module_args reads proj_size, reduce._ARGS_READ)
    for whole in ("nn.LSTM(dim, dim, batch_first=True)", 'nn.Upsample(scale_factor=2, mode="bilinear")', "nn.AdaptiveAvgPool2d((7, 7))", "nn.RMSNorm(dim)",
                  "nn.Sequential(nn.AdaptiveAvgPool2d(3), nn.AdaptiveAvgPool2d(3))",
                  "nn.Linear(dim, int(torch.ones(1).item()))"):
        assert whole in red, whole
    assert "nn.Conv1d" not in red  # no kept code reads self.unread

    files = [str(p) for p in sorted(pkg.glob("*.py"))]
    cfg = Config()
    cfg.opset = opset
    key = lambda f: (f.path, f.line, f.column, f.end_line, f.end_column, f.code, f.message)  # noqa: E731
    reduced = sorted(map(key, lint_paths(files, cfg, jobs=1, use_cache=False).findings))
    orig = engine._reduced
    engine._reduced = lambda text, path, roots, project, *_: (text, None)
    try:
        full = sorted(map(key, lint_paths(files, cfg, jobs=1, use_cache=False).findings))
    finally:
        engine._reduced = orig
    assert reduced == full
    # findings at constructors of __init__ are among them (the test reads what it guards)
    assert any(p.endswith("model.py") and 15 < line < 30 for p, line, *_ in reduced)


def test_silent_modules_are_module_records_no_rule_reads():
    from exportlint.checks.shapes import _ADAPTIVE_MODULES
    from exportlint.ops import table as optable
    from exportlint.semantics.reduce import _silent_modules

    silent = _silent_modules()
    assert "torch.nn.Conv2d" in silent and "torch.nn.Linear" in silent
    assert not silent & _ADAPTIVE_MODULES
    assert not silent & {"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"}
    tbl = optable.load()
    for name in silent:
        rec = tbl.apis[name]
        assert rec.get("module")
        for v in [rec] + list(rec.get("variants", ())):
            assert not v.get("fail") and "onnx-legacy" not in v.get("opset", {})


TRICKY_STRINGS = [
    "x = 'a#b' # c 'd'\ny = \"e\\\"f\" + rb'g' + Rb\"\"\"h\n'i'\"\"\" + f'{j}' + u''\n",
    "s = '''a\n\"b\" # c\n''' # d\nbr = 1; fr = 2; rf'x' # 'y'\nzb\"q\" \n'unterminated\n#",
    "def f(a='#', b=\"'\", c='\\\\'):  # x\n    return a + 'b\\\n' + \"\"\"\"\"\" + ''''''\n",
]


def test_strings_regex_matches_as_the_plain_one():
    from exportlint.semantics.reduce import _STRINGS, _STRINGS_PLAIN

    texts = TRICKY_STRINGS + [p.read_text(encoding="utf-8") for p in _corpus()]
    texts += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "exportlint").rglob("*.py"))]
    for text in texts:
        assert [m.span() for m in _STRINGS.finditer(text)] == [m.span() for m in _STRINGS_PLAIN.finditer(text)]


def test_split_lines_as_the_tokenizer_counts():
    from exportlint.semantics.reduce import _LINES, split_lines

    texts = ["", "\n", "a", "a\r\nb", "\r\r\n\n", "x\x0cy\n", "a\u2028b\r", "a\x85\n\x1c", "a\x0bb\n\x1d\x1e\u2029"]
    texts += TRICKY_STRINGS + [p.read_text(encoding="utf-8") for p in _corpus()]
    for text in texts:
        assert split_lines(text) == _LINES.findall(text)
    assert split_lines("a\x0cb\nc") == ["a\x0cb\n", "c"]
