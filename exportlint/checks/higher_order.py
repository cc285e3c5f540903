"""EXL144 / EXL143 / EXL139 / EXL142: Python-level constructs of forward that torch's tracers refuse.

- EXL144 cond-branch-side-effect: a ``torch.cond`` branch that changes state in place (a
  registered buffer, ``self.hits.add_(1)``, or its operand) or returns its operand or a view of
  it (``return x[:, :3]``, ``return x``): torch.cond traces each branch into a subgraph that may
  neither mutate nor alias its inputs, so strict and non-strict torch.export and onnx-dynamo fail
  at the ``torch.cond`` call ("This higher order operator doesn't work unless it is captured
  completely with torch.compile ... Encountered input mutation / aliasing during higher order op
  tracing"). (onnx-legacy fails on every ``torch.cond``: the op table says so, EXL401.)
- EXL143 compiled-function-legacy: a call of a function compiled with ``torch.compile`` (the
  decorator, or ``name = torch.compile(fn)``): the legacy ONNX exporter's tracer refuses it
  ("Detected that you are using FX to torch.jit.trace a dynamo-optimized function"); torch.export
  and onnx-dynamo trace through it.
- EXL139 parameter-in-forward: ``nn.Parameter(...)`` constructed on the export path: strict
  torch.export fails there ("Attempted to use `torch.nn.Parameter()` with export"); non-strict
  torch.export and both ONNX exporters keep the tensor as a constant.
- EXL142 vmap-over-module-state: ``torch.func.vmap`` over a submodule, or over a function that
  reads module parameters: strict torch.export fails where the parameter is used inside the
  vmapped function ("You are attempting to call Tensor.requires_grad_() ... inside of a function
  being transformed by a functorch transform"); a vmapped pure function exports everywhere.
"""

from __future__ import annotations

import os
from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.model import iter_nodes

# ---------------------------------------------------------------------------------------
# EXL144
# ---------------------------------------------------------------------------------------

_COND = frozenset({"torch.cond", "torch._higher_order_ops.cond.cond", "torch._higher_order_ops.cond",
                   "functorch.experimental.control_flow.cond", "torch._higher_order_ops.cond.cond_op"})
#: Tensor methods whose result shares storage with the receiver (measured: a slice, the operand
#: itself and `transpose` fail; the others are views by definition)
_VIEWS = frozenset({"view", "view_as", "transpose", "permute", "t", "unsqueeze", "squeeze", "narrow", "select",
                    "expand", "expand_as", "detach", "unflatten", "as_strided", "swapaxes", "swapdims",
                    "movedim", "diagonal", "unbind", "split", "chunk", "T", "mT"})
#: in-place Tensor methods that are not `name_` (the `x.add_` family is matched by its trailing _)
_MUTATE = frozenset({"copy_", "fill_", "zero_"})


def _branch_def(ctx, fn, e: cst.BaseExpression) -> Optional[tuple[cst.CSTNode, list[str]]]:
    """The branch a ``torch.cond`` argument names: (its body, its operand parameter names)."""
    if isinstance(e, cst.Lambda):
        return e.body, [p.name.value for p in e.params.params]
    node: Optional[cst.FunctionDef] = None
    method = False
    if isinstance(e, cst.Name):
        for n in iter_nodes(fn.node.body):  # a function nested in the caller
            if isinstance(n, cst.FunctionDef) and n.name.value == e.value:
                node = n
                break
        if node is None:
            node = ctx.model.module_functions.get(e.value)
    elif (isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and fn.self_name is not None
          and e.value.value == fn.self_name and fn.cls is not None):
        r = fn.cls.find_method(e.attr.value)
        if r is not None:
            node, method = r[1], True
    if node is None:
        return None
    params = [p.name.value for p in node.params.params]
    return node.body, (params[1:] if method else params)


def _root(e: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(e, (cst.Attribute, cst.Subscript)):
        e = e.value
    return e


def _state(e: cst.BaseExpression, params: list[str], selfs: set[str]) -> bool:
    """``e`` names an operand or a module attribute (``x``, ``self.hits``, ``self.cache[0]``)."""
    if isinstance(e, cst.Name):
        return e.value in params
    if isinstance(e, cst.Subscript):
        return _state(e.value, params, selfs)
    if isinstance(e, cst.Attribute):
        r = _root(e)
        return isinstance(r, cst.Name) and r.value in selfs
    return False


def _aliases(e: cst.BaseExpression, params: list[str]) -> bool:
    """``e`` is an operand or a view of one (``x``, ``x[:, :3]``, ``x.transpose(0, 1)``)."""
    if isinstance(e, cst.Name):
        return e.value in params
    if isinstance(e, cst.Subscript):
        return _aliases(e.value, params)
    if isinstance(e, cst.Attribute) and e.attr.value in ("T", "mT"):
        return _aliases(e.value, params)
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value in _VIEWS:
        return _aliases(e.func.value, params)
    if isinstance(e, (cst.Tuple, cst.List)):
        return any(_aliases(el.value, params) for el in e.elements if isinstance(el, cst.Element))
    return False


def _impure(body: cst.CSTNode, params: list[str]) -> Optional[tuple[cst.CSTNode, str]]:
    """The first statement of a branch that mutates state or returns an alias of an operand."""
    selfs = {"self"}
    if not isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)):  # a lambda's expression
        return (body, "returns its operand or a view of it") if _aliases(body, params) else None
    for n in iter_nodes(body):
        if isinstance(n, (cst.FunctionDef, cst.Lambda)):
            continue
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute):
            m = n.func.attr.value
            if ((m.endswith("_") and not m.endswith("__")) or m in _MUTATE) and _state(n.func.value, params, selfs):
                return n, "changes a tensor it does not own in place"
        elif isinstance(n, cst.AugAssign) and _state(n.target, params, selfs):  # `x += 1` on a tensor is in place
            return n, "changes a tensor it does not own in place"
        elif isinstance(n, cst.Assign):
            for t in n.targets:
                if isinstance(t.target, cst.Subscript) and _state(t.target.value, params, selfs):
                    return n, "changes a tensor it does not own in place"
        elif isinstance(n, cst.Return) and n.value is not None and _aliases(n.value, params):
            return n, "returns its operand or a view of it"
    return None


@register
class CondBranchSideEffect(Rule):
    code = "EXL144"
    name = "cond-branch-side-effect"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo")
    summary = "A torch.cond branch that mutates state or returns a view of its operand: torch.export fails."

    def check(self, ctx):
        if "cond" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            for call in fn.calls:
                if (call.qualname or "") not in _COND:
                    continue
                pos = call.positional()
                if len(pos) < 3:
                    continue
                why = None
                for arg in pos[1:3]:
                    br = _branch_def(ctx, fn, arg.value)
                    if br is None:
                        continue
                    bad = _impure(*br)
                    if bad is not None:
                        why = (arg.value, bad[1])
                        break
                if why is None:
                    continue
                branch, what = why
                # measured (torch 2.13): a branch doing `self.buf.add_(1)` (a registered buffer) or
                # `x.add_(1)` on its operand, or returning `x`, `x[:, :3]` or `x.transpose(0, 1)`:
                # strict, non-strict and onnx-dynamo fail at the cond ("This higher order operator
                # doesn't work unless it is captured completely with torch.compile ... Encountered
                # input mutation / aliasing during higher order op tracing"); a branch that clones
                # first (`x[:, :3].clone()`, `y = x.clone(); y.add_(1)`) or only reads a buffer
                # exports
                ctx.report(
                    call.node,
                    f"the `torch.cond` branch `{snippet(ctx, branch)}` {what}: torch.cond traces each branch into a "
                    "subgraph that may neither mutate nor alias its inputs, so torch.export (strict and non-strict) "
                    "and onnx-dynamo fail here ('Encountered input mutation / aliasing during higher order op "
                    "tracing'; measured, torch 2.13; a returned view fails eagerly too). Return a new tensor "
                    "(`.clone()` the view), and update buffers outside the cond (`torch.where` on the predicate).",
                )
        return ()


# ---------------------------------------------------------------------------------------
# EXL143
# ---------------------------------------------------------------------------------------

_COMPILE = frozenset({"torch.compile", "torch._dynamo.optimize"})


def _decorated_compile(ctx, node: cst.FunctionDef) -> bool:
    for d in node.decorators:
        e = d.decorator
        q = ctx.model.imports.resolve(e.func if isinstance(e, cst.Call) else e) or ""
        if q in _COMPILE:
            return True
    return False


def _compiled_names(ctx) -> set[str]:
    """Module-level names bound to ``torch.compile(fn)`` (``fast_gelu = torch.compile(_gelu)``)."""
    out: set[str] = set()
    for st in ctx.module.body:
        if isinstance(st, cst.SimpleStatementLine):
            for s in st.body:
                if (isinstance(s, cst.Assign) and len(s.targets) == 1 and isinstance(s.targets[0].target, cst.Name)
                        and isinstance(s.value, cst.Call)
                        and (ctx.model.imports.resolve(s.value.func) or "") in _COMPILE):
                    out.add(s.targets[0].target.value)
    return out


_MSG143 = ("`{src}` calls `{name}`, compiled with `torch.compile`{where}: the legacy ONNX exporter's tracer "
           "refuses it ('Detected that you are using FX to torch.jit.trace a dynamo-optimized function'); "
           "torch.export and onnx-dynamo trace through it (measured, torch 2.13). Export with dynamo=True, or "
           "call the undecorated function on the export path (`fn._torchdynamo_orig_callable`, or compile "
           "only for training).")


@register
class CompiledFunctionLegacy(Rule):
    code = "EXL143"
    name = "compiled-function-legacy"
    severity = Severity.ERROR
    exporters = ("onnx-legacy",)
    summary = "A torch.compile'd function called in forward: the legacy ONNX exporter fails."

    def check(self, ctx):
        seen: set[int] = set()
        if "compile" in ctx.text:
            names = _compiled_names(ctx)
            for fn in ctx.model.functions:
                for call in fn.calls:
                    f = call.node.func
                    target = None
                    if isinstance(f, cst.Name):
                        if f.value in names:
                            target = f.value
                        else:
                            d = ctx.model.module_functions.get(f.value)
                            if d is not None and _decorated_compile(ctx, d):
                                target = f.value
                    elif (isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and fn.self_name is not None
                          and f.value.value == fn.self_name and fn.cls is not None):
                        r = fn.cls.find_method(f.attr.value)
                        if r is not None and _decorated_compile(ctx, r[1]):
                            target = f.attr.value
                    if target is None:
                        continue
                    seen.add(id(call.node))
                    ctx.report(call.node, _MSG143.format(src=snippet(ctx, call.node), name=target, where=""))
            # a submodule compiled in __init__ (`self.block = torch.compile(Block())`): measured,
            # legacy fails at `self.block(x)` the same way
            for fn in ctx.model.functions:
                if fn.cls is None or fn.self_name is None:
                    continue
                for call in fn.calls:
                    f = call.node.func
                    if (call.receiver_kind != "self" or not isinstance(f, cst.Attribute) or id(call.node) in seen):
                        continue
                    fact = fn.cls.find_attr(f.attr.value)
                    if (fact is None or not isinstance(fact.value, cst.Call)
                            or (ctx.model.imports.resolve(fact.value.func) or "") not in _COMPILE):
                        continue
                    seen.add(id(call.node))
                    # a warning: __init__ usually compiles under a flag (kornia's `if compile_model:`,
                    # e3nn's jit_mode), whose other arm binds the plain module; the reduced
                    # __init__ does not show which arm the exported configuration takes
                    ctx.report(call.node, _MSG143.format(src=snippet(ctx, call.node),
                                                         name=snippet(ctx, f), where=" in __init__")
                               + " (A warning: the attribute may be compiled only under a flag.)",
                               severity=Severity.WARNING)
        self._cross_file(ctx, seen)
        return ()

    def _cross_file(self, ctx, seen: set[int]) -> None:
        if ctx.project is None:
            return
        from exportlint.semantics.decorated import decorators_of

        pc = ctx.project_calls()
        for _facts, call, target, _, _ in pc["calls"]:
            if id(call) in seen:
                continue
            if not any(name in _COMPILE for name, *_ in decorators_of(ctx.project, target, pc["deps"])):
                continue
            seen.add(id(call))
            ctx.report(call, _MSG143.format(src=snippet(ctx, call), name=target.qual,
                                            where=f" ({os.path.basename(target.path)})"))


# ---------------------------------------------------------------------------------------
# EXL139
# ---------------------------------------------------------------------------------------

_PARAMETER = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.modules.module.Parameter"})


def _conditional(fn, call) -> bool:
    """The construction runs only under a test: in its function (``if self.w is None:``, a lazy
    initialisation an eager run before export has already done), or the call of its function
    is (FSMT's ``if max_pos > self.weight.size(0): self.make_weight(...)``, which grows a
    table only for inputs longer than the example's)."""
    if call.conds:
        return True
    caller = getattr(fn, "caller", None)
    if caller is None:
        return False
    target = caller.callee_calls.get(id(fn.node))
    if target is None:
        return False
    return any(cs.node is target and cs.conds for cs in caller.calls)


@register
class ParameterInForward(Rule):
    code = "EXL139"
    name = "parameter-in-forward"
    severity = Severity.ERROR
    exporters = ("export-strict",)
    summary = "nn.Parameter constructed in forward: strict torch.export fails."

    def check(self, ctx):
        if "Parameter" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            if fn.node.name.value == "__init__":
                continue
            for call in fn.calls:
                if (call.qualname or "") not in _PARAMETER:
                    continue
                lazy = _conditional(fn, call)
                # measured (torch 2.13): `nn.Parameter(torch.full((n,), v))` built in forward (or in
                # a helper forward calls) fails strict torch.export there ("Attempted to use
                # `torch.nn.Parameter()` with export"); non-strict, onnx-dynamo and onnx-legacy keep
                # the tensor as a constant
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` builds an nn.Parameter on the export path: strict torch.export "
                    "fails here ('Attempted to use `torch.nn.Parameter()` with export'); non-strict torch.export "
                    "and the ONNX exporters keep it as a constant (measured, torch 2.13). Create the parameter in "
                    "`__init__` (or use the plain tensor: a Parameter made in forward is never trained)."
                    + (" (It runs only under a test here, e.g. a lazy initialisation or a table grown for longer "
                       "inputs: strict export fails only when the export's inputs take that path.)" if lazy else ""),
                    severity=Severity.WARNING if lazy else None,
                )
        return ()


# ---------------------------------------------------------------------------------------
# EXL142
# ---------------------------------------------------------------------------------------

_VMAP = frozenset({"torch.vmap", "torch.func.vmap", "functorch.vmap", "torch._functorch.apis.vmap",
                   "torch._functorch.vmap.vmap"})
_FUNCTIONAL_CALL = ("functional_call",)
#: torch.nn modules without parameters or buffers
_STATELESS = frozenset({"ReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Dropout", "Identity",
                        "Flatten", "Unflatten", "LeakyReLU", "ELU", "Mish", "Hardswish", "Hardsigmoid", "Softplus"})


def _self_state_read(ctx, fn, body: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The first read of a module parameter, buffer or submodule (``self.w``, ``self.proj(...)``)
    in a vmapped function's body; None when it reads none, or hands the module's state over
    explicitly (``torch.func.functional_call``)."""
    if fn.self_name is None or fn.cls is None:
        return None
    first = None
    for n in iter_nodes(body):
        if isinstance(n, cst.Call):
            f = n.func
            name = f.attr.value if isinstance(f, cst.Attribute) else f.value if isinstance(f, cst.Name) else ""
            if name in _FUNCTIONAL_CALL:
                return None
        if (first is None and isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name)
                and n.value.value == fn.self_name):
            fact = fn.cls.find_attr(n.attr.value)
            if fact is not None and fact.what in ("parameter", "buffer", "submodule"):
                first = n
    return first


@register
class VmapOverModuleState(Rule):
    code = "EXL142"
    name = "vmap-over-module-state"
    severity = Severity.ERROR
    exporters = ("export-strict",)
    summary = "torch.func.vmap over a function reading module parameters (or a submodule): strict torch.export fails."

    def check(self, ctx):
        if "vmap" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            for call in fn.calls:
                if (call.qualname or "") not in _VMAP or not call.node.args:
                    continue
                target = call.node.args[0].value
                where: Optional[cst.CSTNode] = None
                what = ""
                if (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and fn.self_name is not None
                        and target.value.value == fn.self_name and fn.cls is not None):
                    fact = fn.cls.find_attr(target.attr.value)
                    if fact is None or fact.what != "submodule":
                        continue
                    ctor = ctx.model.imports.resolve(fact.value.func) if isinstance(fact.value, cst.Call) else ""
                    if (ctor or "").rsplit(".", 1)[-1] in _STATELESS and (ctor or "").startswith("torch.nn."):
                        continue  # no parameters to read
                    where, what = call.node, f"the submodule `{snippet(ctx, target)}`"
                else:
                    br = _branch_def(ctx, fn, target)
                    if br is None:
                        continue
                    where = _self_state_read(ctx, fn, br[0])
                    what = f"`{snippet(ctx, target)}`, which reads module state here"
                if where is None:
                    continue
                # measured (torch 2.13): `vmap(self.model)(x)` over a submodule with a Linear, and
                # `torch.vmap(f)(x)` with `f` reading `self.w` (a Parameter): strict torch.export
                # fails at the parameter's use ("You are attempting to call Tensor.requires_grad_()
                # ... inside of a function being transformed by a functorch transform"); non-strict,
                # onnx-dynamo and onnx-legacy pass; a vmapped function that reads no module state passes
                ctx.report(
                    where,
                    f"`{snippet(ctx, call.node)}` vmaps {what}: strict torch.export fails where the parameters are "
                    "used inside the vmapped function ('You are attempting to call Tensor.requires_grad_() ... inside "
                    "of a function being transformed by a functorch transform'); non-strict torch.export and the ONNX "
                    "exporters pass (measured, torch 2.13). Export with strict=False, batch the computation without "
                    "vmap, or hand the parameters over explicitly (`torch.func.functional_call`).",
                )
        return ()
