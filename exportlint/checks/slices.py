"""EXL118: a fixed-length module tensor (buffer, parameter) sliced to a dynamic length.

Measured with torch 2.13 (rules/EXL118.md quotes the messages): ``self.pe[:, :x.size(1)]``,
``self.tril[:T, :T]`` (``B, T, C = x.shape``) with ``x``'s dim declared dynamic by a
``Dim`` make torch.export (strict and non-strict) guard that the dim fits the attribute's
length (``x.size()[1] <= 16``, and for some uses ``x.size()[1] != 32``): a ``Dim`` with no
``max`` always fails ("Constraints violated ... Not all values of T ... satisfy the generated
guard"), one with ``max`` at least the attribute's length may fail, ``max`` below it and
``Dim.AUTO`` / ``Dim.DYNAMIC`` export. onnx-dynamo and onnx-legacy export these slices.

Reported only for dims the file's (or the project's) export declarations make dynamic; an
error when the file shows the ``Dim`` and it has no ``max``, a warning when it has one (the
attribute's length is not read) or when the ``Dim`` is not in the file.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import assignments_in_scope, declared_dims, snippet
from exportlint.findings import Severity
from exportlint.semantics.imports import dotted
from exportlint.semantics.kinds import TENSORISH
from exportlint.semantics.model import iter_nodes, literal_value
from exportlint.semantics.nodes import iter_statements

_AUTO = ("AUTO", "DYNAMIC")


def size_source(e: cst.BaseExpression) -> Optional[tuple[str, int]]:
    """(tensor name, dim) for `x.shape[i]`, `x.size(i)`, `x.size()[i]` with a literal i >= 0."""
    if isinstance(e, cst.Subscript) and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index):
        i = literal_value(e.slice[0].slice.value)
        v = e.value
        if isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "size" and not v.args:
            v = cst.Attribute(value=v.func.value, attr=cst.Name("shape"))
        if (isinstance(i, int) and not isinstance(i, bool) and i >= 0 and isinstance(v, cst.Attribute)
                and v.attr.value == "shape" and isinstance(v.value, cst.Name)):
            return v.value.value, i
    if (isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "size"
            and isinstance(e.func.value, cst.Name) and len(e.args) == 1 and e.args[0].keyword is None):
        i = literal_value(e.args[0].value)
        if isinstance(i, int) and not isinstance(i, bool) and i >= 0:
            return e.func.value.value, i
    return None


def _strip_offset(e: cst.BaseExpression) -> cst.BaseExpression:
    """`n + 1`, `1 + n`, `n - 1` -> `n` (a size shifted by an int literal: ViT's class token)."""
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.Add, cst.Subtract)):
        lv, rv = literal_value(e.left), literal_value(e.right)
        if isinstance(rv, int) and not isinstance(rv, bool):
            return e.left
        if isinstance(e.operator, cst.Add) and isinstance(lv, int) and not isinstance(lv, bool):
            return e.right
    return e


def unpacked_sizes(fn_node: cst.FunctionDef) -> dict[str, list[tuple[str, int, cst.CSTNode]]]:
    """name -> [(tensor, dim, statement)] for `B, T, C = x.shape` / `x.size()` and
    `T = x.shape[1]` (dim -1: some other value)."""
    out: dict[str, list[tuple[str, int, cst.CSTNode]]] = {}
    for st in iter_statements(fn_node, into_defs=False):
        if not isinstance(st, cst.Assign) or len(st.targets) != 1:
            continue
        t, v = st.targets[0].target, st.value
        if isinstance(t, (cst.Tuple, cst.List)):
            src = v
            if isinstance(src, cst.Call) and isinstance(src.func, cst.Attribute) and src.func.attr.value == "size" and not src.args:
                src = cst.Attribute(value=src.func.value, attr=cst.Name("shape"))
            if (isinstance(src, cst.Attribute) and src.attr.value == "shape" and isinstance(src.value, cst.Name)
                    and not any(isinstance(el, cst.StarredElement) for el in t.elements)):
                for i, el in enumerate(t.elements):
                    if isinstance(el.value, cst.Name):
                        out.setdefault(el.value.value, []).append((src.value.value, i, st))
                continue
        for n in target_names(t):
            out.setdefault(n, []).append((*(size_source(v) or ("", -1)), st))
    return out


def target_names(t: cst.BaseExpression) -> list[str]:
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for el in t.elements for n in target_names(el.value)]
    return []


def _rebound_before(fn_node: cst.FunctionDef, name: str, node: cst.CSTNode) -> bool:
    """Whether `name` is assigned (or a loop target) before the statement holding `node`."""
    for st in iter_statements(fn_node, into_defs=False):
        if isinstance(st, cst.For) and name in target_names(st.target):
            return True
        if not isinstance(st, cst.BaseSmallStatement):
            continue
        if st is node or any(n is node for n in iter_nodes(st)):
            return False
        if isinstance(st, cst.Assign) and any(name in target_names(t.target) for t in st.targets):
            return True
        if isinstance(st, (cst.AugAssign, cst.AnnAssign)) and name in target_names(st.target):
            return True
    return False


def dim_exprs(ctx) -> dict[str, dict[int, cst.BaseExpression]]:
    """forward parameter -> dim -> the expression declaring it, from the file's
    ``dynamic_shapes`` dict literals (export-call keywords and module-level assignments)."""
    out: dict[str, dict[int, cst.BaseExpression]] = {}
    dicts: list[cst.BaseExpression] = []
    for ec in ctx.model.export_calls:
        ds = ec.kwarg("dynamic_shapes")
        if ds is not None:
            dicts.append(ds)
    for n, v, _ in assignments_in_scope(ctx.module):
        if n == "dynamic_shapes":
            dicts.append(v)
    module_values = {n: v for n, v, _ in assignments_in_scope(ctx.module)}
    for ds in dicts:
        if isinstance(ds, cst.Name) and isinstance(module_values.get(ds.value), cst.Dict):
            ds = module_values[ds.value]
        if not isinstance(ds, cst.Dict):
            continue
        for el in ds.elements:
            if not isinstance(el, cst.DictElement) or not isinstance(literal_value(el.key), str):
                continue
            p = literal_value(el.key)
            if isinstance(el.value, cst.Dict):
                for d in el.value.elements:
                    if isinstance(d, cst.DictElement) and isinstance(literal_value(d.key), int):
                        e = d.value
                        if isinstance(e, cst.Name) and e.value in module_values:
                            e = module_values[e.value]
                        out.setdefault(p, {})[literal_value(d.key)] = e
    return out


def _dim_form(ctx, e: Optional[cst.BaseExpression]) -> Optional[str]:
    """'auto' (Dim.AUTO / Dim.DYNAMIC), 'nomax' (a Dim without max=), 'max', None (unknown)."""
    if e is None:
        return None
    if isinstance(e, cst.Attribute) and e.attr.value in _AUTO:
        return "auto"
    if isinstance(e, cst.Call):
        q = ctx.model.imports.resolve(e.func) or dotted(e.func) or ""
        if q.endswith("Dim"):
            return "max" if any(a.keyword is not None and a.keyword.value == "max" for a in e.args) else "nomax"
    return None


@register
class SliceToDynamicLength(Rule):
    code = "EXL118"
    name = "attribute-sliced-to-dynamic-length"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict")
    summary = "A module's fixed-length tensor (buffer, parameter) sliced to a dimension declared dynamic."

    def check(self, ctx):
        if (not ctx.model.export_calls and not getattr(ctx, "project_dynamic", None)
                and "dynamic_shapes" not in ctx.text):
            return ()
        exprs: Optional[dict] = None
        for fn in ctx.model.functions:
            if fn.why not in ("forward", "export-call") or fn.cls is None or fn.self_name is None:
                continue
            subs = [s for s in fn.subscripts
                    if isinstance(s.node.value, cst.Attribute) and isinstance(s.node.value.value, cst.Name)
                    and s.node.value.value.value == fn.self_name
                    and any(isinstance(el.slice, cst.Slice) and el.slice.upper is not None for el in s.node.slice)]
            if not subs:
                continue
            if exprs is None:
                exprs = dim_exprs(ctx)
            dyn = declared_dims(ctx, fn.cls.name)
            for p, dims in exprs.items():
                dyn.setdefault(p, set()).update(dims)
            if not dyn:
                continue
            params = {p.name.value for p in list(fn.node.params.posonly_params) + list(fn.node.params.params)}
            sizes: Optional[dict] = None
            for sub in subs:
                node = sub.node
                if fn.kind(node.value) not in TENSORISH:
                    continue
                for el in node.slice:
                    sl = el.slice
                    if not isinstance(sl, cst.Slice) or sl.upper is None or sl.step is not None:
                        continue
                    if sl.lower is not None and literal_value(sl.lower) != 0:
                        continue
                    upper = _strip_offset(sl.upper)
                    src = size_source(upper)
                    read_at: cst.CSTNode = node  # where the size is read off the input
                    if src is None and isinstance(upper, cst.Name):
                        if sizes is None:
                            sizes = unpacked_sizes(fn.node)
                        got = sizes.get(upper.value, [])
                        if len(got) == 1 and got[0][1] >= 0:
                            src, read_at = got[0][:2], got[0][2]
                    if src is None:
                        continue
                    x, d = src
                    if x not in params or d not in dyn.get(x, ()) or _rebound_before(fn.node, x, read_at):
                        continue
                    form = _dim_form(ctx, exprs.get(x, {}).get(d))
                    if form == "auto":
                        continue
                    sev = None if form == "nomax" else Severity.WARNING
                    ctx.report(
                        node,
                        f"`{snippet(ctx, node)}` slices module tensor `{snippet(ctx, node.value)}` to the length of "
                        f"dim {d} of `{x}`, which an export declaration makes dynamic: torch.export then guards that "
                        "the dim fits the tensor's fixed length ('Not all values of ... satisfy the generated guard "
                        "... <= N'), so a Dim with no max (or a max at least that length) fails. Give the Dim a "
                        "`max` below the tensor's length, or use `Dim.AUTO`.",
                        severity=sev,
                    )
                    break
        return ()
