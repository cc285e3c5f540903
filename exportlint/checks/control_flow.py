"""EXL1xx: data-dependent control flow, conversions, loops, slicing; shape specialisation."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import call_exporters, dynamic_dims, snippet
from exportlint.findings import Fix, FixSafety, Severity
from exportlint.semantics.kinds import DATA, SHAPE, TENSORISH
from exportlint.semantics.model import Branch, literal_value

_CONSTRUCT = {
    "if": "`if`",
    "elif": "`elif`",
    "while": "`while`",
    "ifexp": "conditional expression",
    "assert": "`assert`",
    "comprehension": "comprehension filter",
}


def _where_fix(ctx, br: Branch) -> Optional[Fix]:
    """`a if c else b` -> torch.where(c, a, b); `if c: return a / else: return b` likewise."""
    stmt = br.stmt
    torch_name = _torch_alias(ctx)
    if torch_name is None:
        return None
    if isinstance(stmt, cst.IfExp):
        new = cst.parse_expression(
            f"{torch_name}.where({ctx.source_of(stmt.test)}, {ctx.source_of(stmt.body)}, {ctx.source_of(stmt.orelse)})"
        )
        return Fix(
            replacement=ctx.source_of(new),
            safety=FixSafety.UNSAFE,
            description="torch.where evaluates both sides and needs broadcastable tensors; verify with --confirm",
        )
    if isinstance(stmt, cst.If) and stmt.orelse is not None and isinstance(stmt.orelse, cst.Else):
        a = _single_return(stmt.body)
        b = _single_return(stmt.orelse.body)
        if a is not None and b is not None:
            return Fix(
                replacement=f"return {torch_name}.where({ctx.source_of(stmt.test)}, {ctx.source_of(a)}, {ctx.source_of(b)})",
                safety=FixSafety.UNSAFE,
                description="replace the whole if/else with one torch.where (both branches are computed); verify with --confirm",
            )
    return None


def _single_return(block) -> Optional[cst.BaseExpression]:
    stmts = list(block.body) if hasattr(block, "body") else []
    if len(stmts) != 1:
        return None
    s = stmts[0]
    if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Return):
        return s.body[0].value
    if isinstance(s, cst.Return):
        return s.value
    return None


def _torch_alias(ctx) -> Optional[str]:
    for local, q in ctx.model.imports.names.items():
        if q == "torch":
            return local
    return None


@register
class DataDependentBranch(Rule):
    code = "EXL101"
    name = "data-dependent-branch"
    severity = Severity.ERROR
    summary = "A branch, loop condition or assert depends on tensor values."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for br in fn.branches:
                if br.kind != DATA:
                    continue
                what = _CONSTRUCT[br.construct]
                culprit = br.culprit if br.culprit is not None else br.node
                src = snippet(ctx, culprit)
                if br.construct == "assert":
                    msg = (
                        f"{what} on tensor data (`{src}`): torch.export cannot evaluate it at export time "
                        "(data-dependent guard), and ONNX tracing drops or bakes it. Use "
                        "`torch._check(...)` for shape facts, or move the check out of forward."
                    )
                else:
                    msg = (
                        f"{what} depends on tensor data (`{src}`): torch.export fails with a data-dependent guard; "
                        "ONNX tracing bakes in the branch taken by the example input. Compute both sides and "
                        "select with `torch.where(cond, a, b)` / a mask, or use `torch.cond` (torch.export)."
                    )
                ctx.report(br.node, msg, fix=_where_fix(ctx, br))
        return ()


@register
class TensorToPython(Rule):
    code = "EXL102"
    name = "tensor-to-python"
    severity = Severity.ERROR
    summary = "A tensor value is converted to a Python number/list (.item(), int(t), .tolist())."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for call in fn.calls:
                node = call.node
                if call.receiver_kind in TENSORISH and call.method in ("item", "tolist"):
                    what = f"`.{call.method}()`"
                elif (
                    call.method is None
                    and call.qualname in ("int", "float", "bool", "complex")
                    and call.arg_kinds
                    and call.arg_kinds[0] in TENSORISH
                ):
                    what = f"`{call.qualname}(tensor)`"
                else:
                    continue
                ctx.report(
                    node,
                    f"{what} turns tensor data into a Python value (`{snippet(ctx, node)}`): ONNX tracing records it "
                    "as a constant (wrong for other inputs); torch.export makes it an unbacked symbol that fails "
                    "as soon as it decides control flow or a shape. Keep it a tensor (e.g. `t.to(dtype)`, "
                    "broadcasting, `torch.where`).",
                )
        return ()


@register
class DataDependentLoop(Rule):
    code = "EXL103"
    name = "data-dependent-loop"
    severity = Severity.ERROR
    summary = "A loop's trip count comes from tensor data."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for loop in fn.loops:
                if loop.kind != DATA:
                    continue
                ctx.report(
                    loop.iter,
                    f"loop trip count depends on tensor data (`{snippet(ctx, loop.iter)}`): tracing unrolls it for "
                    "the example input only, torch.export cannot decide it. Vectorise the loop (batched ops, "
                    "masks) or give it a static bound.",
                )
        return ()


@register
class DataDependentSlice(Rule):
    code = "EXL104"
    name = "data-dependent-slice"
    severity = Severity.ERROR
    summary = "Indexing/slicing bounds come from tensor data."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for sub in fn.subscripts:
                if DATA in sub.index_kinds:
                    ctx.report(
                        sub.node,
                        f"slice bound or index comes from tensor data (`{snippet(ctx, sub.node)}`): the result's "
                        "shape depends on values. ONNX tracing bakes the bound in; torch.export needs an unbacked "
                        "size with `torch._check`. Use a mask (`x * mask`) or `torch.narrow` with a static length.",
                    )
        return ()


@register
class ShapeBranch(Rule):
    code = "EXL111"
    name = "shape-branch"
    severity = Severity.WARNING
    summary = "A branch or loop depends on a tensor shape (specialised at export)."

    def check(self, ctx):
        dyn = dynamic_dims(ctx)
        for fn in ctx.model.functions:
            params = _tensor_params(fn)
            for br in fn.branches:
                if br.kind != SHAPE or br.construct == "assert":
                    continue
                if br.construct in ("if", "elif") and _only_raises(br.stmt):
                    continue  # an input check: exporters keep it as a guard/assert
                culprit = br.culprit if br.culprit is not None else br.node
                hit = _dynamic_hit(culprit, dyn, params)
                if hit is not None:
                    ctx.report(
                        br.node,
                        f"{_CONSTRUCT[br.construct]} on a shape (`{snippet(ctx, culprit)}`) that an export call in "
                        f"this file declares dynamic ({hit}): export specialises it (error or a silently static "
                        "dimension). Use `torch.cond`, or make both paths one computation.",
                        severity=Severity.ERROR,
                        exporters=_exporters_for_dynamic(ctx),
                    )
                else:
                    ctx.report(
                        br.node,
                        f"{_CONSTRUCT[br.construct]} on a shape (`{snippet(ctx, culprit)}`): the export keeps only "
                        "the branch taken by the example input's shape. Fine for static shapes; with a dynamic "
                        "dimension use `torch.cond` or one computation for both cases.",
                    )
            for loop in fn.loops:
                if loop.kind != SHAPE:
                    continue
                ctx.report(
                    loop.iter,
                    f"loop over a shape (`{snippet(ctx, loop.iter)}`) is unrolled for the example input's size"
                    + (" (iterating a tensor walks its first dimension)" if loop.over_tensor else "")
                    + ": wrong or rejected when that dimension is dynamic. Vectorise it if the size can change.",
                )
        return ()


def _tensor_params(fn) -> set[str]:
    ps = list(fn.node.params.posonly_params) + list(fn.node.params.params)
    return {p.name.value for p in ps if fn.env.get(p.name.value) in TENSORISH}


def _only_raises(stmt) -> bool:
    if not isinstance(stmt, cst.If):
        return False
    body = list(stmt.body.body)
    if not body:
        return False
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine) and any(isinstance(s, cst.Raise) for s in last.body):
        return all(
            isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, (cst.Raise, cst.Expr, cst.Assign)) for x in s.body)
            for s in body
        )
    return False


def _dynamic_hit(culprit, dyn: dict[str, set], params: set[str]) -> Optional[str]:
    """'x dim 0' when culprit reads x.shape[d] / x.size(d) of a parameter declared dynamic."""
    if not dyn:
        return None
    name = dim = None
    if isinstance(culprit, cst.Subscript) and isinstance(culprit.value, cst.Attribute) and culprit.value.attr.value == "shape":
        base = culprit.value.value
        if isinstance(base, cst.Name) and len(culprit.slice) == 1 and isinstance(culprit.slice[0].slice, cst.Index):
            name = base.value
            dim = literal_value(culprit.slice[0].slice.value)
    elif isinstance(culprit, cst.Call) and isinstance(culprit.func, cst.Attribute) and culprit.func.attr.value == "size":
        base = culprit.func.value
        if isinstance(base, cst.Name) and culprit.args:
            name = base.value
            dim = literal_value(culprit.args[0].value)
    if name is None or name not in dyn:
        return None
    dims = dyn[name]
    if dim in dims or (isinstance(dim, int) and dim < 0 and None in dims):
        return f"`{name}` dim {dim}"
    return None


def _exporters_for_dynamic(ctx) -> tuple[str, ...]:
    out: list[str] = []
    for ec in ctx.model.export_calls:
        for e in call_exporters(ec):
            if e not in out:
                out.append(e)
    return tuple(out) or ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")
