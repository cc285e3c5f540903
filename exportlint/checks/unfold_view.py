"""EXL138 unfold-window-flatten: the windows of ``x.unfold(dim, size, step)`` (step > 1) fed to a
Linear / matmul / reshape while the unfolded dimension is dynamic.

Measured with torch 2.13 (``x`` of shape (2, T), ``T = Dim("T", min=16, max=512)``):
``nn.Linear(4, 8)(x.unfold(-1, 4, 2))``, the same after ``.contiguous()``, ``unfold(-1, 4, 4)``,
``x.unfold(-1, 4, 2) @ w`` and ``f.reshape(f.shape[0], -1)`` fail strict and non-strict
torch.export at the Linear / matmul / reshape ("Constraints violated (T)! ... Not all values
of T ... satisfy the generated guard T != (-2) + 2*(T // 2)": the window count ``(T - size) //
step + 1`` is flattened with the window stride and needs T's remainder); onnx-dynamo passes.
``step=1``, a reduction of the windows (``.sum(-1)``, ``.mean(-1)``) and a dynamic batch only
(T static) pass. bench/cases ``pkg_unfold_frames_opset11`` (from pytorch/pytorch#57086: the
framing helper in another file, the Linear in the model) fails at the Linear's line.
"""

from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from exportlint.checks.base import Rule, callee_summary, register
from exportlint.checks.common import all_declared_dims, call_arg, declares_dynamic, snippet
from exportlint.findings import Severity
from exportlint.semantics.kinds import TENSORISH, UNKNOWN
from exportlint.semantics.model import iter_nodes, literal_value

#: a callee of another file that returns an unfold window view of a parameter (step not 1)
UNFOLD_VIEW_RESULT = "#unfold-view"

_RESHAPES = frozenset({"reshape", "view", "flatten"})
_MATMULS = frozenset({"torch.matmul", "torch.mm", "torch.bmm", "torch.nn.functional.linear"})


def _unfold(fn: Any, e: cst.BaseExpression) -> Optional[tuple[cst.Call, object]]:
    """``t.unfold(dim, size, step)`` on a tensor whose step is not the literal 1 -> (call, dim)."""
    if not (isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "unfold"):
        return None
    if fn.kind(e.func.value) not in TENSORISH and fn.kind(e.func.value) != UNKNOWN:
        return None
    dim, size, step = call_arg(e, "dimension", 0), call_arg(e, "size", 1), call_arg(e, "step", 2)
    if dim is None or size is None or step is None:
        return None  # nn.Unfold / F.unfold (im2col) take other arguments
    if literal_value(step) == 1:
        return None
    return e, literal_value(dim)


@callee_summary(UNFOLD_VIEW_RESULT)
def returns_unfold_view(model: Any, facts: Any) -> str:
    """"i:d" when ``facts`` (a plain function) returns ``<its i-th param>.unfold(d, size, step)``
    (step not 1, d a literal), "1" for another such unfold of a parameter, else ""."""
    order = [p.name.value for p in list(facts.node.params.posonly_params) + list(facts.node.params.params)]
    params = {p.name.value for p in iter_nodes(facts.node.params) if isinstance(p, cst.Param)}
    for n in iter_nodes(facts.node.body):
        if isinstance(n, cst.Return) and n.value is not None:
            v = n.value
            if (isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "unfold"
                    and isinstance(v.func.value, cst.Name) and v.func.value.value in params):
                step = call_arg(v, "step", 2)
                if step is not None and call_arg(v, "size", 1) is not None and literal_value(step) != 1:
                    d = literal_value(call_arg(v, "dimension", 0))
                    base = v.func.value.value
                    if facts.cls is None and isinstance(d, int) and base in order:
                        return f"{order.index(base)}:{d}"
                    return "1"
    return ""


def _handed_dim_declared(ctx, fn, call: cst.Call, got: str, decl: dict) -> bool:
    """Whether a call into a helper that unfolds dim d of its i-th parameter (``got`` = "i:d")
    hands there a forward input of ``fn`` whose dim d is declared dynamic (a negative d read
    through the example's rank, the project's "rank:r" marker)."""
    i, _, d = got.partition(":")
    try:
        i, dim = int(i), int(d)
    except ValueError:
        return False
    pos = [a.value for a in call.args if a.keyword is None and not a.star]
    if i >= len(pos) or not isinstance(pos[i], cst.Name) or fn.node.name.value != "forward":
        return False
    name = pos[i].value
    own = decl.get(name, set())
    if dim < 0:
        raw = ((getattr(ctx, "project_dynamic", None) or {}).get(fn.cls.name) or {}).get(name, ())
        ranks = {int(m[5:]) for m in raw if isinstance(m, str) and m.startswith("rank:") and m[5:].isdigit()}
        if len(ranks) != 1:
            return False
        dim += ranks.pop()
    return dim in own


def _linear_submodule(ctx, fn, call: cst.Call) -> bool:
    f = call.func
    if not (isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value == "self"
            and fn.cls is not None):
        return False
    fact = fn.cls.find_attr(f.attr.value)
    if fact is None or not isinstance(fact.value, cst.Call):
        return False
    return ctx.model.imports.resolve(fact.value.func) == "torch.nn.Linear"


@register
class UnfoldWindowFlatten(Rule):
    code = "EXL138"
    name = "unfold-window-flatten"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict")
    summary = "Windows of x.unfold(d, size, step > 1) of a dynamic dim fed to a Linear/matmul/reshape."

    def check(self, ctx):
        if "unfold" not in ctx.text and not ctx.model.call_returns:
            return ()
        if not declares_dynamic(ctx):
            return ()  # fixed shapes pass; unknown: not reported
        from exportlint.semantics.data_sized import call_key

        rets = ctx.model.call_returns or {}
        for fn in ctx.model.functions:
            if fn.cls is None:
                continue
            decl = all_declared_dims(ctx, fn.cls.name)
            found = {d for ds in decl.values() for d in ds}
            if not found or found == {0}:
                continue  # nothing declared, or only the batch: the window count is static
            views: dict[str, tuple[cst.CSTNode, bool]] = {}  # name -> (unfold or call, dim known dynamic)
            sites = {id(s.node): s for s in fn.calls}
            for st in iter_nodes(fn.node.body):
                if not (isinstance(st, cst.Assign) and len(st.targets) == 1
                        and isinstance(st.targets[0].target, cst.Name)):
                    continue
                name, v = st.targets[0].target.value, st.value
                u = _unfold(fn, v)
                if u is not None:
                    base = v.func.value
                    own = decl.get(base.value, set()) if isinstance(base, cst.Name) else set()
                    views[name] = (v, isinstance(u[1], int) and u[1] in own)
                    continue
                if isinstance(v, cst.Call) and id(v) in sites:
                    key = call_key(fn, sites[id(v)])
                    got = rets.get(key + UNFOLD_VIEW_RESULT) if key else None
                    if got:
                        views[name] = (v, _handed_dim_declared(ctx, fn, v, got, decl))
                        continue
                if (isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "contiguous"
                        and isinstance(v.func.value, cst.Name) and v.func.value.value in views):
                    views[name] = views[v.func.value.value]
                    continue
                views.pop(name, None)
            def view_of(t):
                if (isinstance(t, cst.Call) and isinstance(t.func, cst.Attribute) and t.func.attr.value == "contiguous"
                        and not t.args):
                    t = t.func.value
                if isinstance(t, cst.Name):
                    return views.get(t.value)
                u = _unfold(fn, t) if t is not None else None
                if u is None:
                    return None
                base = t.func.value
                own = decl.get(base.value, set()) if isinstance(base, cst.Name) else set()
                return t, isinstance(u[1], int) and u[1] in own

            if not views and "unfold" not in ctx.text:
                continue
            hits: list[tuple[cst.CSTNode, tuple]] = []
            for n in iter_nodes(fn.node.body):
                if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.MatrixMultiply):
                    got = view_of(n.left)
                    if got is not None:
                        hits.append((n, got))
            for call in fn.calls:
                e = call.node
                pos = [a for a in e.args if a.keyword is None and not a.star]
                q = call.qualname or ""
                target: Optional[cst.BaseExpression] = None
                if isinstance(e.func, cst.Attribute) and e.func.attr.value in _RESHAPES:
                    target = e.func.value
                elif q in _MATMULS or _linear_submodule(ctx, fn, e):
                    target = pos[0].value if pos else None
                got = view_of(target)
                if got is not None:
                    hits.append((e, got))
            for e, (src, known) in hits:
                ctx.report(
                    e,
                    f"`{snippet(ctx, e)}` flattens the windows of `{snippet(ctx, src)}` (unfold with a step "
                    "other than 1): with the unfolded dimension dynamic, strict and non-strict torch.export "
                    "fail here ('Constraints violated ... satisfy the generated guard T != (-2) + 2*(T // 2)': "
                    "the window count (T - size) // step + 1 needs T's remainder); onnx-dynamo passes. Export "
                    "that dimension static, or reduce the windows (`.mean(-1)`) before flattening them.",
                    severity=None if known else Severity.WARNING,
                )
        return ()
