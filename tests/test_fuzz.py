"""Fuzz: the engine never lets an exception escape and no rule crashes, on random valid Python.

Three sources of programs:
- hypothesmith's grammar-based generator (random syntactically valid modules), linted as is
  and with an exporter call appended (so the text prefilter does not skip them);
- the same random statements indented into ``forward`` of an ``nn.Module`` (and into a helper
  it calls), so the semantic model really analyses them on the export path;
- a small generator of torch-flavoured code (tensor values, ``.item()``, shapes, branches,
  loops, comprehensions, nested functions, export calls) that reaches the rules' interesting
  paths far more often than unconstrained random code does.

``Linter.lint_text`` must return normally with ``errors == []`` (an entry there is a rule or
the semantic model raising). Examples are bounded so the module runs in well under a minute.
"""

from __future__ import annotations

import textwrap
import warnings

import pytest

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from exportlint.config import Config  # noqa: E402
from exportlint.engine import Linter  # noqa: E402

# Generating programs (not linting them: about 5 ms each) is what costs here, hypothesmith's
# CST-based generator most of all; counts are set so the module takes about 30 s of CPU.
def _settings(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
        database=None,
    )

_LINTER = Linter(Config())


def _lint_ok(src: str, path: str = "fuzz.py"):
    res = _LINTER.lint_text(src, path)  # must not raise
    assert res.errors == [], "\n".join(res.errors) + "\n--- source ---\n" + src
    for f in res.findings:
        assert f.line >= 1 and f.column >= 1, (f, src)
        assert (f.end_line, f.end_column) >= (f.line, f.column), (f, src)
    return res


def _compiles(src: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning on e.g. `0[1]`: still valid code
            compile(src, "fuzz.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


# -------------------------------------------------------------------------------------------
# hypothesmith
# -------------------------------------------------------------------------------------------


@_settings(100)
@given(hypothesmith.from_grammar())
def test_random_modules(src):
    _lint_ok(src)
    # the prefilter skips files with neither a forward nor an export call: force the full path
    _lint_ok(src + "\n\ntorch.export.export(m, (x,))\n")


@_settings(20)
@given(hypothesmith.from_node())
def test_random_cst_modules(src):
    _lint_ok(src + "\n\ndef forward(self, x):\n    return x\n")


MODULE_TEMPLATE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


def helper(t, n=2):
{helper}
    return t


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.n = 3
        self.register_buffer("buf", torch.zeros(4))

    def forward(self, x, y=None):
        h = self.lin(x)
{body}
        return helper(h)


m = M().eval()
torch.export.export(m, (torch.randn(2, 4),))
"""


@_settings(100)
@given(hypothesmith.from_grammar())
def test_random_statements_inside_forward(src):
    body = textwrap.indent(src, " " * 8) if src.strip() else "        pass\n"
    helper = textwrap.indent(src, " " * 4) if src.strip() else "    pass\n"
    wrapped = MODULE_TEMPLATE.format(body=body.rstrip("\n"), helper=helper.rstrip("\n"))
    assume(_compiles(wrapped))  # indenting can break e.g. a backslash continuation
    _lint_ok(wrapped)


# -------------------------------------------------------------------------------------------
# torch-flavoured generator
# -------------------------------------------------------------------------------------------

NAMES = ["x", "h", "y", "i", "n", "self.n", "self.lin", "self.buf", "self.cache", "out", "t"]
TENSOR_METHODS = ["sum()", "item()", "tolist()", "numpy()", "cuda()", "cpu()", "size(0)", "dim()",
                  "numel()", "any()", "all()", "max()", "argmax(-1)", "nonzero()", "to('cuda')",
                  "half()", "float()", "clone()", "detach()", "shape[0]", "shape", "T", "device", "dtype",
                  "view(-1)", "unsqueeze(0)", "mean(dim=1, keepdim=True)"]
CALLS = ["torch.zeros({a})", "torch.ones({a}, device=({b}).device)", "torch.arange({a})", "torch.where({a}, {b}, {b})",
         "torch.randn({a})", "torch.cat([{a}, {b}])", "F.relu({a})", "len({a})", "int({a})", "float({a})",
         "bool({a})", "range({a})", "print({a})", "np.array({a})", "math.sqrt({a})", "random.random()",
         "self.lin({a})", "helper({a})", "isinstance({a}, torch.Tensor)", "torch.cond({a}, f, g, ({b},))",
         "torch.nonzero({a})", "({a}).new_zeros(3)", "getattr(self, 'lin')({a})", "time.time()",
         "torch.autocast('cuda')", "list({a})", "tuple({a})", "max({a}, {b})", "torch.tensor([{a}])",
         "nn.functional.pad({a}, (1, 1))", "({a})[{b}]", "({a})[:{b}]", "({a})[..., None]", "({a}, {b})",
         "[{a} for _ in range(3)]", "(lambda q: q + {a})", "({a} if {b} else {b})", "(not {a})", "(-{a})",
         "({a}).to(({b}).device)", "torch.jit.is_tracing()", "torch.compiler.is_compiling()", "self.training",
         "torch.onnx.is_in_onnx_export()", "({a} is None)", "({a} is not None)", "({a} in {b})",
         "torch.ops.aten.add({a}, {b})", "torch.library.custom_op", "f(*{a}, **{b})", "({a} @ {b})", "{{'k': {a}}}"]
BINOPS = ["+", "-", "*", "/", "//", "%", "**", ">", "<", "==", "!=", ">=", "and", "or", "&", "|"]


def _expr(depth: int = 3):
    leaf = st.one_of(
        st.sampled_from(NAMES),
        st.sampled_from(["0", "1", "2", "-1", "0.5", "None", "True", "'cuda'", "'cpu'", "[]", "()", "..."]),
        st.builds(lambda n, m: f"{n}.{m}", st.sampled_from(NAMES), st.sampled_from(TENSOR_METHODS)),
    )
    if depth <= 0:
        return leaf
    sub = _expr(depth - 1)
    return st.one_of(
        leaf,
        st.builds(lambda c, a, b: c.format(a=a, b=b), st.sampled_from(CALLS), sub, sub),
        st.builds(lambda a, op, b: f"({a} {op} {b})", sub, st.sampled_from(BINOPS), sub),
        st.builds(lambda a, m: f"({a}).{m}", sub, st.sampled_from(TENSOR_METHODS)),
    )


TARGETS = ["h", "y", "i", "n", "out", "t", "self.n", "self.cache", "self.lin", "x[0]", "h[:, 0]", "a, b",
           "self.calls", "_"]


def _stmts(depth: int):
    e = _expr(2)
    simple = st.one_of(
        st.builds(lambda t, v: [f"{t} = {v}"], st.sampled_from(TARGETS), e),
        st.builds(lambda t, op, v: [f"{t} {op}= {v}"], st.sampled_from(["h", "n", "self.n", "i", "self.calls"]),
                  st.sampled_from(["+", "-", "*"]), e),
        st.builds(lambda v: [f"return {v}"], e),
        st.builds(lambda v: [f"assert {v}, 'msg'"], e),
        st.builds(lambda v: [f"{v}"], e),
        st.sampled_from([["pass"], ["global G"], ["del out"], ["raise ValueError('x')"],
                         ["import numpy as np"], ["from torch import nn as tnn"], ["nonlocal_ok = 1"],
                         ["yield h"], ["torch._check(h.shape[0] > 0)"], ["torch._dynamo.mark_dynamic(x, 0)"]]),
    )
    if depth <= 0:
        return st.lists(simple, min_size=1, max_size=3).map(lambda ls: [s for l in ls for s in l])
    block = _stmts(depth - 1)

    def indent(lines):
        return ["    " + s for s in lines]

    compound = st.one_of(
        st.builds(lambda c, a, b: [f"if {c}:", *indent(a), "else:", *indent(b)], e, block, block),
        st.builds(lambda c, d, a, b: [f"if {c}:", *indent(a), f"elif {d}:", *indent(b)], e, e, block, block),
        st.builds(lambda t, it, a, c: [f"for {t} in {it}:", *indent(a), f"    if {c}:", "        continue"],
                  st.sampled_from(["i", "t", "(a, b)", "_"]), e, block, e),
        st.builds(lambda c, a: [f"while {c}:", *indent(a), "    break"], e, block),
        st.builds(lambda c, a: [f"with {c} as ctx:", *indent(a)], e, block),
        st.builds(lambda a, b: ["try:", *indent(a), "except Exception as err:", *indent(b)], block, block),
        st.builds(lambda n, a: [f"def {n}(q, *args, k=None, **kw):", *indent(a), "    return q"],
                  st.sampled_from(["f", "g", "inner"]), block),
        st.builds(lambda a: ["class Local(nn.Module):", "    def forward(self, z):", *indent(indent(a)),
                             "        return z"], block),
    )
    return st.lists(st.one_of(simple, compound), min_size=1, max_size=4).map(lambda ls: [s for l in ls for s in l])


TORCH_TEMPLATE = """\
import math
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

G = 0


def helper(t, n=2):
{helper}
    return t


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.n = 3
        self.cache = torch.zeros(4)
        self.register_buffer("buf", torch.zeros(4))
{init}


class M(Base):
    def forward(self, x, y=None, *args, **kwargs):
        h = self.lin(x)
        out = h
        t = y
        i = n = 0
{body}
        return self.other(h)

    def other(self, h):
{other}
        return h


m = M()
{export}
"""

EXPORTS = [
    "torch.export.export(m, (torch.randn(2, 4),))",
    "torch.export.export(m, (torch.randn(2, 4),), dynamic_shapes={'x': {0: torch.export.Dim('b')}}, strict=True)",
    "torch.onnx.export(m, (torch.randn(2, 4),), 'm.onnx', dynamo=False, opset_version=9, input_names=['x'], "
    "dynamic_axes={'x': {0: 'b'}, 'nope': {0: 'b'}})",
    "torch.onnx.export(nn.DataParallel(m), torch.randn(2, 4), 'm.onnx', enable_onnx_checker=False)",
    "torch.jit.trace(m, torch.randn(2, 4))",
    "torch.onnx.dynamo_export(m.eval(), torch.randn(2, 4))",
    "export(m)",
]


_BLOCK1 = _stmts(1)


@_settings(200)
@given(body=_stmts(2), other=_BLOCK1, helper=_BLOCK1, init=_BLOCK1, export=st.sampled_from(EXPORTS))
def test_torch_flavoured_models(body, other, helper, init, export):
    src = TORCH_TEMPLATE.format(
        body="\n".join(" " * 8 + s for s in body),
        other="\n".join(" " * 8 + s for s in other),
        helper="\n".join(" " * 4 + s for s in helper),
        init="\n".join(" " * 8 + s for s in init),
        export=export,
    )
    assume(_compiles(src))
    _lint_ok(src)


@pytest.mark.parametrize(
    "src",
    [
        "",
        "\n",
        "def forward(self, x):\n    pass\n",
        "def forward(self, x): return x if x else -x\n",
        "class M:\n    def forward(self, x, /, *, y):\n        return lambda: (yield)\n",
        "def forward(self, x):\n    match x:\n        case [a, *rest] if a.sum() > 0:\n            return a\n        case _:\n            return x\n",
        "async def forward(self, x):\n    async with x as y:\n        await y\n    return [z async for z in x]\n",
        "def forward(self, x):\n    (a := x.sum()) and a.item()\n    return f'{x!r:>{x.shape[0]}}'\n",
        "def forward(self, x):\n    global forward\n    del x\n    return x\n",
        "torch.export.export(*a, **k)\ntorch.onnx.export()\nexport(lambda: 0)\n",
        "class M(torch.nn.Module):\n    forward = lambda self, x: x.item()\n",
        "class M(M):\n    def forward(self, x):\n        return super().forward(x)\n",
        "def forward(self, x):\n    return forward(self, x)\n",
        "\ufeffdef forward(self, x):\n    return x\r\n",
        "def forward(self, x):\n\tif x.sum():\n\t\treturn x\n\treturn -x\n",
        "def forward(self, x):  # noqa: EXL101\n    if x.sum() > 0:  # exportlint: ignore[EXL999]\n        pass\n",
    ],
)
def test_edge_cases(src):
    _lint_ok(src)
