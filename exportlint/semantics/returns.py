"""Positions of a returned tuple that are sizes, read from the callee's source.

``embeddings, num_frames, patch_width = self.patch_embeddings(pixel_values)`` where the
submodule's forward ends ``return embeddings, num_frames, patch_width`` with ``batch, num_frames,
... = pixel_values.shape`` and ``patch_width = embeddings.size(-1)``: the call's result is typed
as a tensor, and unpacking it would type every element as one (a comparison of ``num_frames``
then reads as a data-dependent branch). This finds the positions whose returned value is a size
in every ``return`` of the callee, syntactically (no analysis of the callee needed).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.semantics.nodes import child_nodes

_SIZE_METHODS = ("size", "numel", "dim", "ndimension")


def _is_size_expr(e: cst.BaseExpression, sizes: set[str]) -> bool:
    if isinstance(e, cst.Name):
        return e.value in sizes
    if isinstance(e, cst.Integer):
        return True
    if isinstance(e, cst.Subscript):
        v = e.value
        return isinstance(v, cst.Attribute) and v.attr.value == "shape"
    if isinstance(e, cst.Attribute):
        return e.attr.value in ("ndim",)
    if isinstance(e, cst.Call):
        f = e.func
        return isinstance(f, cst.Attribute) and f.attr.value in _SIZE_METHODS and bool(e.args)
    if isinstance(e, cst.BinaryOperation):
        return _is_size_expr(e.left, sizes) and _is_size_expr(e.right, sizes)
    return False


def _is_shape_tuple(e: cst.BaseExpression) -> bool:
    # x.shape, x.shape[1:], x.size()
    if isinstance(e, cst.Subscript):
        e = e.value
    if isinstance(e, cst.Attribute):
        return e.attr.value == "shape"
    if isinstance(e, cst.Call):
        f = e.func
        return isinstance(f, cst.Attribute) and f.attr.value == "size" and not e.args
    return False


_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) in _NESTED and n is not node:
            continue
        yield n
        stack.extend(reversed(child_nodes(n)))  # pre-order, in source order


_CACHE: "dict[tuple[int, int], tuple[cst.FunctionDef, Optional[set[int]]]]" = {}


def size_return_positions(fn: cst.FunctionDef, arity: int) -> Optional[set[int]]:
    """The positions (0-based) of `fn`'s returned tuple that are sizes in every `return`; None when
    some `return` is not a tuple display of `arity` elements (or `fn` yields). Cached per node."""
    key = (id(fn), arity)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is fn:
        return hit[1]
    if len(_CACHE) > 4096:
        _CACHE.clear()
    got = _size_return_positions(fn, arity)
    _CACHE[key] = (fn, got)  # the node is kept with its id: an id reused by a new node misses
    return got


def _size_return_positions(fn: cst.FunctionDef, arity: int) -> Optional[set[int]]:
    assigned: dict[str, bool] = {}  # name -> every assignment is a size
    returns: list[cst.Tuple] = []
    for n in _walk(fn):
        t = type(n)
        if t is cst.Yield:
            return None
        if t is cst.Return:
            v = n.value
            if not isinstance(v, cst.Tuple) or len(v.elements) != arity:
                return None
            if any(isinstance(el, cst.StarredElement) for el in v.elements):
                return None
            returns.append(v)
        elif t is cst.Assign:
            for tgt in n.targets:
                tt = tgt.target
                if isinstance(tt, cst.Name):
                    ok = _is_size_expr(n.value, {k for k, v in assigned.items() if v})
                    assigned[tt.value] = assigned.get(tt.value, True) and ok
                elif isinstance(tt, (cst.Tuple, cst.List)):
                    ok = _is_shape_tuple(n.value)
                    for el in tt.elements:
                        if isinstance(el.value, cst.Name):
                            assigned[el.value.value] = assigned.get(el.value.value, True) and ok
        elif t is cst.AugAssign and isinstance(n.target, cst.Name):
            assigned[n.target.value] = assigned.get(n.target.value, True) and _is_size_expr(
                n.value, {k for k, v in assigned.items() if v})
        elif t in (cst.For, cst.CompFor) and isinstance(n.target, cst.Name):
            assigned[n.target.value] = False
    if not returns:
        return None
    sizes = {k for k, v in assigned.items() if v}
    return {i for i in range(arity) if all(_is_size_expr(r.elements[i].value, sizes) for r in returns)}
