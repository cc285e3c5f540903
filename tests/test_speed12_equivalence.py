"""Shortcuts of the cold-run speed work of stop 24 (issue 9) against the slow forms they replace,
on real files (torch's own ``nn/modules`` and ExportDB examples everywhere; timm, transformers
and torchvision model files where installed: ``conftest.real_files``):

- ``positions.resolve_positions`` stops each codegen after the last target (``EARLY_STOP``):
  the same positions as generating the whole anchor (and the whole module for nodes without an
  anchor), including anchors whose shortened text occurs more than once in the source;
- ``flow._scalar_doc_names`` finds ``_DOC_LINE``'s matches with a pattern that starts with a
  line break and has possessive quantifiers: the same names as the first form;
- ``flow._attr_write_counts`` scans with ``_ATTR_WRITE_ONE`` (the two branches' common start
  read once): the same matches (names and spans) as ``_ATTR_WRITE``;
- ``schedule.callers_first`` finds a file's imports with ``_IMPORT_NL`` over ``b"\\n" + text``:
  the same matches as ``_IMPORT`` (``^``, multiline) over the text.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
from conftest import real_files

from exportlint import positions
from exportlint.schedule import _IMPORT, _IMPORT_NL
from exportlint.engine import parse_module
from exportlint.semantics.flow import _ATTR_WRITE, _ATTR_WRITE_ONE, _scalar_doc_names, _scalar_doc_names_slow
from exportlint.semantics.nodes import iter_nodes


def _texts(stride: int = 3, hf_stride: int = 8) -> list[str]:
    out = []
    for f in real_files(stride, hf_stride):
        try:
            out.append(Path(f).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return out


def _anchored_items(module: cst.Module) -> list[tuple[cst.CSTNode, tuple]]:
    """(node, anchor) for a few expression nodes of every top-level function and method, the
    anchors as the semantic model gives them (the function, the indentation of its ``def``)."""
    items: list[tuple[cst.CSTNode, tuple]] = []

    def add(fn: cst.FunctionDef, indent: str) -> None:
        nodes = [n for n in iter_nodes(fn.body) if isinstance(n, (cst.Call, cst.Name, cst.Attribute))]
        for n in nodes[:: max(1, len(nodes) // 4)][:5]:
            items.append((n, (fn, indent)))

    for st in module.body:
        if isinstance(st, cst.FunctionDef):
            add(st, "")
        elif isinstance(st, cst.ClassDef) and isinstance(st.body, cst.IndentedBlock):
            ind = st.body.indent if st.body.indent is not None else module.default_indent
            for m in st.body.body:
                if isinstance(m, cst.FunctionDef):
                    add(m, ind)
    return items


def _both(module: cst.Module, text: str, items: list) -> tuple[dict, dict]:
    try:
        positions.EARLY_STOP = True
        fast = positions.resolve_positions(module, text, items)
        positions.EARLY_STOP = False
        slow = positions.resolve_positions(module, text, items)
    finally:
        positions.EARLY_STOP = True
    return fast, slow


def test_early_stop_positions_equal_whole_codegen_on_real_files() -> None:
    checked = 0
    for text in _texts(5, 16):
        try:
            module = parse_module(text)
        except Exception:  # noqa: BLE001 - a file libcst cannot parse: nothing to compare
            continue
        items = _anchored_items(module)
        # nodes without an anchor: placed by the module's codegen
        top = [n for st in module.body[:40] for n in iter_nodes(st) if isinstance(n, cst.Name)]
        items += [(n, None) for n in top[::7][:4]]
        if not items:
            continue
        fast, slow = _both(module, text, items)
        assert fast == slow
        assert len(fast) == len({id(n) for n, _ in items})
        checked += len(items)
    assert checked > 300


_TWINS = '''
import torch


class A(torch.nn.Module):
    def forward(self, x):
        y = x.sum()
        return y + 1


class B(torch.nn.Module):
    def forward(self, x):
        y = x.sum()
        return y + 2
'''


def test_early_stop_positions_of_an_anchor_whose_prefix_repeats() -> None:
    """B.forward's text up to ``x.sum()`` is also A.forward's: the whole text places it."""
    module = parse_module(_TWINS)
    items = _anchored_items(module)
    b_fwd = [it for it in items if it[1][0] is module.body[-1].body.body[0]]
    calls = [n for n, _ in b_fwd if isinstance(n, cst.Call)]
    assert calls
    fast, slow = _both(module, _TWINS, items)
    assert fast == slow
    assert fast[id(calls[0])][0] == 13  # B's `y = x.sum()`, not A's (line 7)


_DOC_EDGES = [
    "",
    "x: int",
    "x: int\n\n",
    "x: int\n\n\ny (int): a",
    "\n\n  *args (int): q\n",
    "foo:\n  bar (int): x",  # foo's match takes bar's line (as the first form does)
    "a:int\n\n\nb:int\r\nc (float, optional):\n",
    "    n_heads (int or float): heads\n    mask (Tensor, optional): m\n    p : bool\n",
    "x :   \n",
    "**kwargs (str): k\n\tdim (int | None): d\n",
]


def test_scalar_doc_names_equal_the_first_form() -> None:
    texts = _texts() + _DOC_EDGES
    found = 0
    for text in texts:
        got = _scalar_doc_names(text)
        assert got == _scalar_doc_names_slow(text)
        found += len(got)
    assert found > 50


_WRITE_EDGES = ["a.x **= 2", "a.x: int = 3", "a .x == 2", "self.x=1\nself.y+=2\nself.z: T=3 == 4",
                "a.b  //= 3; a.c <<= 1; a.d:=5", "x.y\t>>= 1 ; x.z : Optional[int]", "obj.attr_1 @= m"]


def test_attr_write_matches_equal_the_first_pattern() -> None:
    found = 0
    for text in _texts() + _WRITE_EDGES:
        first = [(m.group(1) or m.group(2), m.span()) for m in _ATTR_WRITE.finditer(text)]
        one = [(m.group(1), m.span()) for m in _ATTR_WRITE_ONE.finditer(text)]
        assert one == first
        assert _ATTR_WRITE_ONE.findall(text) == [name for name, _ in first]
        found += len(one)
    assert found > 100


_IMPORT_EDGES = [b"", b"import a", b"from . import (x,\n y)\nimport b.c", b"from .m import a, b # c\nfrom x import y; import z",
                 b"\rimport q\r\nimport r", b"  import indented\nfrom\t..pkg.mod  import  (\n  a as b,\n)\n", b"importx\nfrom.import y"]


def test_import_scan_matches_equal_the_first_pattern() -> None:
    found = 0
    for text in [t.encode("utf-8", "surrogatepass") for t in _texts()] + _IMPORT_EDGES:
        first = [m.groups() for m in _IMPORT.finditer(text)]
        assert [m.groups() for m in _IMPORT_NL.finditer(b"\n" + text)] == first
        found += len(first)
    assert found > 100
