"""``engine.parse_module`` shares equal trivia nodes (whitespace, newlines, commas, dots, ...)
while libcst's native parser runs (``engine._shared_trivia``): the tree must be the one a plain
``libcst.parse_module`` gives, and libcst's classes must be back in place afterwards."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from exportlint import engine

ROOT = Path(__file__).resolve().parent.parent
_TRIVIA = ("SimpleWhitespace", "Newline", "TrailingWhitespace", "EmptyLine", "Dot", "Comma", "Colon", "AssignEqual")

_ODD = '''\
import torch  # comment
from a import (b,
    c ,d)
x = f( 1 ,  2, k = 3 )[ 0 : 2 ]  ;  y = {1 : 2}
if x :  # c
    pass

\f
class A(torch.nn.Module) :
    def forward(self, x) -> int:
        return x . y \\
            + 1
z = lambda q : q
'''


def _files() -> list[str]:
    out = sorted(str(p) for d in ("bench/cases", "examples", "exportlint/semantics") for p in (ROOT / d).rglob("*.py"))
    return out[:: max(1, len(out) // 60)]


@pytest.mark.parametrize("text", [_ODD, "x = 1\r\ny = (2,\r\n 3)\r\n", "a=1", ""])
def test_shared_trivia_parse_is_a_plain_parse(text):
    shared = engine.parse_module(text)
    plain = cst.parse_module(text)
    assert shared.code == text
    assert shared.deep_equals(plain)


def test_shared_trivia_parse_of_real_files():
    for path in _files():
        text = Path(path).read_text(encoding="utf-8")
        shared = engine.parse_module(text)
        assert shared.code == text, path
        assert shared.deep_equals(cst.parse_module(text)), path


def test_trivia_is_shared_and_libcst_classes_are_restored():
    m = engine.parse_module("x = f(a, b)\ny = g(c, d)\n")
    calls = [s.body[0].value for s in m.body]
    assert calls[0].args[0].comma is calls[1].args[0].comma  # one Comma for both
    assert calls[0].args[0].comma.whitespace_after is calls[1].args[0].comma.whitespace_after
    assert calls[0] is not calls[1] and calls[0].func is not calls[1].func  # meaningful nodes never are
    for name in _TRIVIA:
        cls = getattr(cst, name)
        assert isinstance(cls, type) and issubclass(cls, cst.CSTNode), name


def test_libcst_classes_are_restored_when_the_parse_fails():
    with pytest.raises(cst.ParserSyntaxError):
        engine.parse_module("def (:\n")
    for name in _TRIVIA:
        assert isinstance(getattr(cst, name), type), name
