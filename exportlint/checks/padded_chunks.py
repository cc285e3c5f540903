"""EXL153 padded-chunk-split: a dim padded to a multiple of a chunk, split into ``(-1, chunk)``.

The chunked scans of state-space and linear-attention layers pad the sequence to a multiple of
the chunk with ``pad = (chunk - seq % chunk) % chunk``, reshape it into ``(..., -1, chunk, ...)``
and slice the result back with ``[..., :seq]``. With the sequence dynamic, torch.export must
prove ``(seq + (chunk - seq % chunk) % chunk) % chunk == 0`` and cannot. Measured with torch 2.13
(bench/labels/probes_lead30/probe_chunk_topk.py, cases B and C): strict and non-strict fail
"Constraints violated (seq)! ... satisfy the generated guard ((8*L['x'].size()[1] + 8*((16 +
(-1)*(L['x'].size()[1] % 16)) % 16)) ..."; the same code with the dim declared a multiple of the
chunk (``16 * Dim(...)``) passes, and so do both ONNX exporters. Held-out zoo lines:
transformers' bamba ``reshape_into_chunks`` (``modeling_bamba.py:299``, the reshape) and
bailing_hybrid's ``chunk_kimi_delta_attention`` (``modeling_bailing_hybrid.py:642``, the slice back),
both strict and non-strict; torch names the reshape in one and the slice back in the other.

Reported, in a function that computes such a pad amount from a size (``(k - s % k) % k`` or
``-s % k``, ``s`` a tensor's size) or is handed one by a call of its file: each ``reshape`` /
``view`` with a ``-1`` followed by another size (the split into chunks), and each slice
``[..., :s]`` back to that size. A warning (the sequence may be static for the project's exports);
nothing for projects that export fixed shapes.
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import declares_dynamic, snippet
from exportlint.checks.size_ops import bound_once
from exportlint.findings import Severity
from exportlint.semantics.kinds import SHAPE
from exportlint.semantics.model import iter_nodes

_RESHAPE = frozenset({"reshape", "view"})
#: a line with a pad-to-multiple amount, ``(k - s % k) % k`` or ``-s % k`` (the rule's file filter)
_PAD_RE = re.compile(r"%[^\n%#]*\)\s*%|(?:[=(,:]|return)\s*\(?-\s*[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?\)?\s*%", re.M)


def _pad_size(ctx, fn, e: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """``s`` of ``(k - s % k) % k`` / ``-s % k`` when ``s`` is a tensor's size; else None."""
    if not (isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.Modulo)):
        return None
    k, left = snippet(ctx, e.right), e.left
    s = None
    if isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Subtract) \
            and snippet(ctx, left.left) == k and isinstance(left.right, cst.BinaryOperation) \
            and isinstance(left.right.operator, cst.Modulo) and snippet(ctx, left.right.right) == k:
        s = left.right.left
    elif isinstance(left, cst.UnaryOperation) and isinstance(left.operator, cst.Minus):
        s = left.expression
    if s is None or not (fn.kind(s) == SHAPE or _read_of_shape(fn, s)):
        return None
    return s


def _is_shape(e: cst.BaseExpression) -> bool:
    """``t.shape`` / ``t.size()`` (or a slice of one)."""
    if isinstance(e, cst.Subscript):
        e = e.value
    return (isinstance(e, cst.Attribute) and e.attr.value == "shape") or (
        isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "size" and not e.args)


def _read_of_shape(fn, s: cst.BaseExpression) -> bool:
    """``s`` is read from a shape by syntax, whatever the tensor's kind is known to be: ``t.shape[i]``,
    ``t.size(i)``, or a name the function binds once, by unpacking ``t.shape`` / ``t.size()``."""
    if isinstance(s, cst.Subscript) and _is_shape(s.value):
        return True
    if isinstance(s, cst.Call) and isinstance(s.func, cst.Attribute) and s.func.attr.value == "size" and s.args:
        return True
    if not isinstance(s, cst.Name):
        return False
    found = 0
    for n in iter_nodes(fn.node.body):
        if type(n) is cst.Assign:
            for t in n.targets:
                tg = t.target
                if isinstance(tg, cst.Name) and tg.value == s.value:
                    found += 1 if isinstance(n.value, cst.Subscript) and _is_shape(n.value.value) else 2
                elif isinstance(tg, (cst.Tuple, cst.List)) and any(
                        isinstance(el.value, cst.Name) and el.value.value == s.value for el in tg.elements):
                    found += 1 if _is_shape(n.value) else 2
    return found == 1


def _pad_amounts(ctx, fn) -> tuple[set[str], set[str], set[str]]:
    """(names bound once to a pad amount, the sizes they pad, the chunks they pad to) of ``fn``."""
    names, sizes, chunks = set(), set(), set()
    for n in iter_nodes(fn.node.body):
        if type(n) is cst.Assign and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name):
            s = _pad_size(ctx, fn, n.value)
            name = n.targets[0].target.value
            if s is not None and bound_once(fn, name) is n.value:
                names.add(name)
                sizes.add(snippet(ctx, s))
                chunks.add(snippet(ctx, n.value.right))
    return names, sizes, chunks


def _params(node: cst.FunctionDef) -> list[str]:
    return [p.name.value for p in (*node.params.posonly_params, *node.params.params)]


def _handed(ctx, fns, pads: dict) -> dict[int, set[str]]:
    """id(FunctionDef) -> its parameters a call of this file hands the chunk of a pad amount, when
    the call hands it the pad amount too."""
    out: dict[int, set[str]] = {}
    for fn in fns:
        names, _sizes, chunks = pads[id(fn)]
        if not names:
            continue
        for n in iter_nodes(fn.node.body):
            if type(n) is not cst.Call:
                continue
            callee = fn.local_callee(n)
            if callee is None:
                continue
            ps = _params(callee)
            if ps and ps[0] == "self" and isinstance(n.func, cst.Attribute):
                ps = ps[1:]
            padded, chunk_params = False, set()
            for i, a in enumerate(n.args):
                if a.star:
                    break
                p = a.keyword.value if a.keyword is not None else (ps[i] if i < len(ps) else None)
                if p is None:
                    continue
                if isinstance(a.value, cst.Name) and a.value.value in names:
                    padded = True
                elif snippet(ctx, a.value) in chunks:
                    chunk_params.add(p)
            if padded and chunk_params:
                out.setdefault(id(callee), set()).update(chunk_params)
    return out


def _chunk_split(ctx, call: cst.Call, chunks: set[str]) -> bool:
    """``t.reshape(..., -1, k, ...)`` / ``t.view(...)``: a ``-1`` followed by one of ``chunks``."""
    f = call.func
    if not (isinstance(f, cst.Attribute) and f.attr.value in _RESHAPE):
        return False
    args = [a.value for a in call.args]
    if any(a.star or a.keyword is not None for a in call.args):
        return False
    for i, a in enumerate(args[:-1]):
        if isinstance(a, cst.UnaryOperation) and isinstance(a.operator, cst.Minus) \
                and isinstance(a.expression, cst.Integer) and a.expression.value == "1":
            return snippet(ctx, args[i + 1]) in chunks
    return False


def _slices_back(ctx, n: cst.CSTNode, sizes: set[str]) -> bool:
    """``t[..., :s]`` with ``s`` one of ``sizes``."""
    if type(n) is not cst.Subscript:
        return False
    for el in n.slice:
        sl = el.slice
        if isinstance(sl, cst.Slice) and sl.lower is None and sl.step is None and sl.upper is not None \
                and snippet(ctx, sl.upper) in sizes:
            return True
    return False


@register
class PaddedChunkSplit(Rule):
    code = "EXL153"
    name = "padded-chunk-split"
    severity = Severity.WARNING
    exporters = ("export-strict", "export-nonstrict")
    summary = "A dim padded to a multiple of a chunk and split into (-1, chunk): torch.export cannot prove it divides."

    def check(self, ctx):
        if "%" not in ctx.text or _PAD_RE.search(ctx.text) is None:
            return ()
        if declares_dynamic(ctx) is False:
            return ()  # fixed shapes: the padded size is a constant
        fns = list(ctx.model.functions)
        pads = {id(fn): _pad_amounts(ctx, fn) for fn in fns}
        handed = _handed(ctx, fns, pads)
        for fn in fns:
            names, sizes, chunks = pads[id(fn)]
            chunks = chunks | handed.get(id(fn.node), set())
            if not chunks:
                continue
            for n in iter_nodes(fn.node.body):
                if type(n) is cst.Call and _chunk_split(ctx, n, chunks):
                    ctx.report(
                        n,
                        f"`{snippet(ctx, n)}` splits into chunks (`-1` and a chunk size) a dim padded to a multiple "
                        "of the chunk: with that dim dynamic torch.export cannot prove the padded size divides "
                        "('Constraints violated ... satisfy the generated guard ... % 16') and fails. Declare the "
                        "dim a multiple of the chunk (`chunk * Dim(...)`) and drop the padding, or export it static.",
                    )
                elif sizes and _slices_back(ctx, n, sizes):
                    ctx.report(
                        n,
                        f"`{snippet(ctx, n)}` slices back to the size the function padded to a multiple of a chunk: "
                        "with that dim dynamic torch.export cannot prove the padded, chunked size covers it "
                        "('Constraints violated ... satisfy the generated guard') and fails. Declare the dim a "
                        "multiple of the chunk (`chunk * Dim(...)`) and drop the padding, or export it static.",
                    )
        return ()
