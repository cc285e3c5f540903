"""checks.common.call_arg: the one reader of "a call's argument by keyword or position" that
the op rules share (ceil_pool, unfold_view, static_size, shapes, module_args, size_semantics)."""

import libcst as cst
import pytest

from exportlint.checks.common import call_arg


def _arg(src: str, name: str, pos: int):
    v = call_arg(cst.parse_expression(src), name, pos)
    return None if v is None else cst.Module([]).code_for_node(v)


@pytest.mark.parametrize("src,name,pos,want", [
    ("f(a, b, c)", "y", 1, "b"),                 # by position
    ("f(a, y=b)", "y", 1, "b"),                  # by keyword
    ("f(a, z=b)", "y", 1, None),                 # absent
    ("f(a)", "y", 3, None),                      # past the positional ones
    ("f(*xs, b)", "y", 1, None),                 # a *args before hides the position
    ("f(a, *xs)", "y", 1, None),                 # ... and at it
    ("f(a, b, *xs)", "y", 1, "b"),               # one after it does not
    ("f(a, **kw)", "y", 1, None),                # the **kwargs itself is never the argument
    ("f(a, b, **kw)", "y", 1, "b"),
    ("f(*xs, y=b)", "y", 1, "b"),                # a keyword is found whatever the stars
])
def test_call_arg(src, name, pos, want):
    assert _arg(src, name, pos) == want
