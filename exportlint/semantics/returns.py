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


_CACHE: "dict[tuple, tuple[cst.FunctionDef, Optional[tuple[set[int], set[int]]]]]" = {}


def size_return_positions(fn: cst.FunctionDef, arity: int, sized: frozenset = frozenset(),
                          numbers: frozenset = frozenset()) -> Optional[set[int]]:
    """The positions (0-based) of `fn`'s returned tuple that are sizes in every `return`; None when
    some `return` is not a tuple display of `arity` elements (or `fn` yields). Cached per node.

    ``sized`` / ``numbers``: the parameters the call site hands a size / a Python number. A list the
    function starts empty and grows only with ``append`` of sizes and numbers, one a size at least
    (bigbird's ``_get_rand_attn_plan``: ``plan_from_length.append(from_seq_length)``), is a size too (a
    list of sizes, like ``x.shape``)."""
    got = _positions(fn, arity, sized, numbers)
    return got[0] if got is not None else None


def size_list_return_positions(fn: cst.FunctionDef, arity: int, sized: frozenset = frozenset(),
                               numbers: frozenset = frozenset()) -> set[int]:
    """Of ``size_return_positions``, those whose value is such a grown list of sizes in every ``return``."""
    got = _positions(fn, arity, sized, numbers)
    return got[1] if got is not None else set()


def _positions(fn, arity, sized, numbers):
    key = (id(fn), arity, sized, numbers)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is fn:
        return hit[1]
    if len(_CACHE) > 4096:
        _CACHE.clear()
    got = _size_return_positions(fn, arity, sized, numbers)
    _CACHE[key] = (fn, got)  # the node is kept with its id: an id reused by a new node misses
    return got


def _is_number_expr(e: cst.BaseExpression, numbers: frozenset) -> bool:
    if isinstance(e, cst.Integer):
        return True
    if isinstance(e, cst.Name):
        return e.value in numbers
    if isinstance(e, cst.BinaryOperation):
        return _is_number_expr(e.left, numbers) and _is_number_expr(e.right, numbers)
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "int" and len(e.args) == 1:
        return True  # a Python int (or a symbolic size) whatever it converts, never a tensor
    return False


def _size_return_positions(fn: cst.FunctionDef, arity: int, sized: frozenset = frozenset(),
                           numbers: frozenset = frozenset()) -> Optional[tuple[set[int], set[int]]]:
    assigned: dict[str, bool] = {k: True for k in sized}  # name -> every assignment is a size
    #: name -> None (started empty, nothing appended yet), True (a size appended), False (not a list of sizes)
    grown: dict[str, Optional[bool]] = {}
    returns: list[cst.Tuple] = []
    for n in _walk(fn):
        t = type(n)
        if t is cst.Call and grown:
            f = n.func
            if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value in grown:
                name = f.value.value
                if f.attr.value == "append" and len(n.args) == 1 and not n.args[0].star and grown[name] is not False:
                    a = n.args[0].value
                    if _is_number_expr(a, numbers):
                        pass  # a number: the list stays what it is
                    elif _is_size_expr(a, {k for k, v in assigned.items() if v}):
                        grown[name] = True
                    else:
                        grown[name] = False
                else:
                    grown[name] = False
            continue
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
                if isinstance(tt, cst.Name) and isinstance(n.value, cst.List) and not n.value.elements \
                        and tt.value not in grown and tt.value not in assigned:
                    grown[tt.value] = None
                elif isinstance(tt, cst.Name):
                    if tt.value in grown:
                        grown[tt.value] = False
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
    lists = {k for k, v in grown.items() if v is True}
    sizes = {k for k, v in assigned.items() if v} | lists
    pos = {i for i in range(arity) if all(_is_size_expr(r.elements[i].value, sizes) for r in returns)}
    return pos, {i for i in pos if all(isinstance(r.elements[i].value, cst.Name) and r.elements[i].value.value in lists
                                       for r in returns)}
