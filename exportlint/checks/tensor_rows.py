"""EXL207: the rows of a tensor iterated in Python (``for h, w in spatial_shapes``) used as
the sizes of a ``view`` / ``reshape``.

Measured with torch 2.13 (multi-level deformable attention, ``for level, (height, width) in
enumerate(spatial_shapes)`` then ``value[...].reshape(b, -1, height, width)``): torch.export
strict and non-strict fail at the reshape, ``Could not guard on data-dependent expression
Ne(2*u2*u3, 0)``, and so does onnx-dynamo; the legacy exporter traces the sizes as tensors
and exports a matching model.
"""

from __future__ import annotations

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.kinds import TENSORISH
from exportlint.semantics.model import iter_nodes

_RESHAPES = frozenset({"view", "reshape"})


def _names(e: cst.CSTNode) -> set[str]:
    return {n.value for n in iter_nodes(e) if isinstance(n, cst.Name)}


def _annotated_sequence(fnode: cst.FunctionDef, name: str) -> bool:
    for p in list(fnode.params.posonly_params) + list(fnode.params.params) + list(fnode.params.kwonly_params):
        if p.name.value == name and p.annotation is not None:
            a = p.annotation.annotation
            head = a.value if isinstance(a, cst.Subscript) else a
            txt = head.attr.value if isinstance(head, cst.Attribute) else head.value if isinstance(head, cst.Name) else ""
            return txt in ("list", "List", "tuple", "Tuple", "Sequence")
    return False


def _linspace_steps(ctx, call: cst.Call):
    """The ``steps`` argument of a ``torch.linspace`` call; None for any other call."""
    if ctx.model.imports.resolve(call.func) != "torch.linspace":
        return None
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "steps":
            return a.value
    pos = [a for a in call.args if a.keyword is None and not a.star]
    return pos[2].value if len(pos) > 2 else None


@register
class TensorRowsAsSizes(Rule):
    code = "EXL207"
    name = "tensor-rows-as-sizes"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo")
    summary = "Values from iterating a tensor (for h, w in shapes) used as view/reshape sizes or linspace steps."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for loop in fn.statements():  # (a for loop is a statement)
                if type(loop) is not cst.For:  # (exact type: cheaper than the ABC check)
                    continue
                it = loop.iter
                if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "enumerate" and it.args:
                    src = it.args[0].value
                    target = loop.target
                    if isinstance(target, cst.Tuple) and len(target.elements) == 2:
                        target = target.elements[1].value
                    else:
                        continue
                else:
                    src, target = it, loop.target
                if not isinstance(src, cst.Name) or fn.env.get(src.value) not in TENSORISH:
                    continue
                if _annotated_sequence(fn.node, src.value):
                    continue  # `shapes: list[tuple]`: the author passes Python ints (what export needs)
                if src.value in fn.annotated_only:
                    # `value_spatial_shapes: Tensor` in a helper whose callers pass a value of unknown
                    # kind (rt_detr_v2: `spatial_shapes_list`, a list of (h, w) ints): the annotation
                    # alone does not show the rows are 0-d tensors
                    continue
                rows = _names(target)
                if not rows:
                    continue
                # one step of arithmetic on them inside the loop (n = h * w)
                for st in iter_nodes(loop.body):
                    if (isinstance(st, cst.Assign) and len(st.targets) == 1 and isinstance(st.targets[0].target, cst.Name)
                            and _names(st.value) & rows and not isinstance(st.value, cst.Call)):
                        rows.add(st.targets[0].target.value)
                for call in iter_nodes(loop.body):
                    if not isinstance(call, cst.Call):
                        continue
                    linspace = ctx.model.imports.resolve(call.func) == "torch.linspace"
                    steps = _linspace_steps(ctx, call) if linspace else None
                    if linspace:
                        # measured (torch 2.13, bench/cases pkg_spatial_shapes_linspace: `for H, W in
                        # spatial_shapes:` over `torch.as_tensor` of feature-map sizes, then
                        # `torch.linspace(0.5, H - 0.5, H)`): strict, non-strict and onnx-dynamo fail
                        # there ('Could not extract specialized integer from data-dependent expression
                        # u0'); the legacy exporter traces it and matches
                        if not (isinstance(steps, cst.Name) and steps.value in rows):
                            continue
                        used, sink = [cst.Arg(steps)], "the step count of `torch.linspace`"
                    elif isinstance(call.func, cst.Attribute) and call.func.attr.value in _RESHAPES:
                        if fn.kind(call.func.value) not in TENSORISH:
                            continue
                        used = [a for a in call.args if a.keyword is None and isinstance(a.value, cst.Name)
                                and a.value.value in rows]
                        sink = f"`{call.func.attr.value}`"
                    else:
                        continue
                    if not used:
                        continue
                    ctx.report(
                        call,
                        f"`{snippet(ctx, used[0].value)}` comes from iterating the tensor `{src.value}` (each "
                        f"element is a 0-d tensor, its value data) and sizes {sink}: torch.export "
                        "(strict and non-strict) and onnx-dynamo fail here ('Could not guard on data-dependent "
                        "expression'); the legacy exporter traces it. Pass the sizes as Python ints (a module "
                        "attribute or constant), or split with `torch.split(value, sizes)` from a static list.",
                    )
                    break
        return ()
