"""Python-level machinery in forward that the graph tracers refuse or cannot see.

Measured with torch 2.13 (probes quoted in each rule page; cases in bench/cases/):

- EXL210: a ``torch.distributions`` object built in forward validates its arguments by default
  (``validate_args``): it reduces a constraint mask to a Python bool. torch.export (strict:
  'Attempted to call function marked as skipped'; non-strict: 'Could not guard on
  data-dependent expression Eq(u0, 1)') and onnx-dynamo fail; ``validate_args=False`` or
  ``Distribution.set_default_validate_args(False)`` exports everywhere.
- EXL211: calls strict torch.export (dynamo) will not trace: a function decorated with
  ``@torch.compiler.disable`` / ``@torch._dynamo.disable`` ('Skip calling
  `torch.compiler.disable()`d function'), ``torch.jit.fork`` ('Attempted to call function marked as
  skipped'), and a gradient hook registered in forward whose body changes module state ('HOP:
  Unsafe side effect'). Non-strict torch.export and both ONNX exporters run them.
- EXL212: autograd inside forward: ``torch.autograd.grad`` fails every exporter (non-strict: 'We
  found a fake tensor in the exported program constant's list'; legacy: 'Cannot insert a Tensor
  that requires grad as a constant'), and ``requires_grad_()`` on a forward input fails strict
  ('Unsupported Tensor.requires_grad_() call').
- EXL125: a ``functools.lru_cache`` / ``cache`` function called with a size of a dynamic
  dimension: non-strict torch.export hashes the SymInt ('unhashable type: non-nested SymInt');
  static sizes are plain ints and export.
"""

from __future__ import annotations

import os
from typing import Iterator, Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.checks.len_size import DYN, Dims
from exportlint.checks.size_semantics import size_level
from exportlint.findings import Severity
from exportlint.semantics.kinds import SHAPE, TENSORISH
from exportlint.semantics.model import iter_nodes, literal_value


def _callee(ctx, fn, call) -> Optional[cst.FunctionDef]:
    """The function of this file a call runs: `helper(...)` or `self.method(...)`."""
    f = call.node.func
    if isinstance(f, cst.Name):
        return ctx.model.module_functions.get(f.value)
    if (isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and fn.self_name is not None
            and f.value.value == fn.self_name and fn.cls is not None):
        r = fn.cls.find_method(f.attr.value)
        return r[1] if r is not None else None
    return None


def _decorators(ctx, node: cst.FunctionDef) -> Iterator[tuple[str, Optional[cst.Call]]]:
    """(qualified name, the call when the decorator is called) of each decorator."""
    for d in node.decorators:
        e = d.decorator
        call = e if isinstance(e, cst.Call) else None
        q = ctx.model.imports.resolve(call.func if call is not None else e)
        if q:
            yield q, call


# ---------------------------------------------------------------------------------------
# EXL210
# ---------------------------------------------------------------------------------------

def _defaults_off(ctx) -> bool:
    """`torch.distributions.Distribution.set_default_validate_args(False)` somewhere in the file."""
    if "set_default_validate_args" not in ctx.text:
        return False
    for n in iter_nodes(ctx.module):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "set_default_validate_args":
            if n.args and literal_value(n.args[0].value) is False:
                return True
    return False


def _distribution_class(ctx, q: str) -> bool:
    if q.startswith("torch.distributions."):
        last = q.rsplit(".", 1)[-1]
        return last[:1].isupper() and last not in ("Transform", "Constraint") and not last.endswith("Transform")
    c = ctx.model.classes.get(q)
    if c is None:
        return False
    return any(_distribution_class(ctx, b) for b in c.bases if b != q)


def _literal_tensor(ctx, e) -> bool:
    """``torch.tensor(<number literal>, ...)``."""
    return (isinstance(e, cst.Call) and e.args and e.args[0].keyword is None and not e.args[0].star
            and (ctx.model.imports.resolve(e.func) or "") == "torch.tensor"
            and not isinstance(literal_value(e.args[0].value), bool)
            and isinstance(literal_value(e.args[0].value), (int, float)))


def _constant_param(ctx, fn, e) -> bool:
    """A Python number, a ``torch.tensor`` of a number literal, or a local of ``fn`` bound once, by a
    plain assignment, to one (torchscale's ``gumbel_rsample``: ``one = torch.tensor(1.0,
    device=device)``, ``Gumbel(zero, one)``): the validation runs on constants."""
    if isinstance(literal_value(e), (int, float)) or _literal_tensor(ctx, e):
        return True
    if not isinstance(e, cst.Name):
        return False
    bound = []
    for n in iter_nodes(fn.node):
        if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr, cst.WithItem)):
            targets = ([t.target for t in n.targets] if isinstance(n, cst.Assign)
                       else [n.target] if not isinstance(n, cst.WithItem)
                       else [n.asname.name] if n.asname is not None else [])
            for t in targets:
                if any(isinstance(x, cst.Name) and x.value == e.value for x in iter_nodes(t)):
                    bound.append(n)
    return (len(bound) == 1 and isinstance(bound[0], cst.Assign) and len(bound[0].targets) == 1
            and isinstance(bound[0].targets[0].target, cst.Name) and _literal_tensor(ctx, bound[0].value))


@register
class DistributionValidation(Rule):
    code = "EXL210"
    name = "distribution-argument-validation"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo")
    summary = "A torch.distributions object built in forward validates its arguments (a data-dependent check)."

    def check(self, ctx):
        if "distributions" not in ctx.text or _defaults_off(ctx):
            return ()
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ctx.model.imports.resolve(call.node.func) or ""
                if not _distribution_class(ctx, q):
                    continue
                v = call.kwarg("validate_args")
                if v is not None and literal_value(v.value) is False:
                    continue
                if call.node.args and all(_constant_param(ctx, fn, a.value) for a in call.node.args
                                          if a.keyword is None or a.keyword.value != "validate_args"):
                    # only Python numbers (`Normal(0, 1)`) or literal 0-d tensors (`Gumbel(zero, one)`,
                    # `one = torch.tensor(1.0)`): the check runs on constants; strict still refuses the
                    # validation code (measured: Normal(0, 1).icdf, Gumbel(0, 1).rsample;
                    # bench/labels/probes_prec17/r1 r39: non-strict and onnx-dynamo pass and match)
                    ctx.report(
                        call.node,
                        f"`{snippet(ctx, call.node)}` validates its arguments (torch.distributions does by default): "
                        "strict torch.export refuses the validation code ('Attempted to call function marked as "
                        "skipped'); with constant parameters (Python numbers, literal tensors) non-strict torch.export "
                        "and onnx-dynamo run it (measured, torch 2.13). Pass `validate_args=False`.",
                        exporters=("export-strict",),
                    )
                    continue
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` validates its arguments (torch.distributions does by default): it "
                    "turns a check on tensor values into a Python bool, so torch.export fails (non-strict: 'Could not "
                    "guard on data-dependent expression Eq(u0, 1)'; strict: 'Attempted to call function marked as "
                    "skipped') and onnx-dynamo with it; the legacy exporter drops the check (measured, torch 2.13). "
                    "Pass `validate_args=False`, or call "
                    "`torch.distributions.Distribution.set_default_validate_args(False)` before exporting.",
                )
        return ()


# ---------------------------------------------------------------------------------------
# EXL211
# ---------------------------------------------------------------------------------------

_DISABLE = frozenset({"torch.compiler.disable", "torch._dynamo.disable", "torch._dynamo.eval_frame.disable"})
_FORK = frozenset({"torch.jit.fork", "torch.jit._fork"})


def _disabled(ctx, node: cst.FunctionDef) -> Optional[str]:
    for q, call in _decorators(ctx, node):
        if q in _DISABLE:
            if call is not None:
                rec = [a for a in call.args if a.keyword is not None and a.keyword.value == "recursive"]
                if rec and literal_value(rec[0].value) is False:
                    return None  # only the frame itself is skipped (not measured)
            return q
    return None


def _hook_side_effects(ctx, fn, hook: cst.BaseExpression) -> Optional[cst.CSTNode]:
    """The first statement of a gradient hook (`self.<method>`) that changes module state."""
    if not (isinstance(hook, cst.Attribute) and isinstance(hook.value, cst.Name) and fn.self_name is not None
            and hook.value.value == fn.self_name and fn.cls is not None):
        return None
    r = fn.cls.find_method(hook.attr.value)
    if r is None:
        return None
    body = r[1]
    ps = list(body.params.params)
    me = ps[0].name.value if ps else None
    if me is None:
        return None
    for n in iter_nodes(body.body):
        if isinstance(n, (cst.Assign, cst.AugAssign)):
            targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]
            for t in targets:
                base = t.value if isinstance(t, cst.Subscript) else t
                if isinstance(base, cst.Attribute) and isinstance(base.value, cst.Name) and base.value.value == me:
                    return n
        elif isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in (
                "append", "extend", "update", "add", "insert"):
            recv = n.func.value
            if isinstance(recv, cst.Attribute) and isinstance(recv.value, cst.Name) and recv.value.value == me:
                return n
    return None


@register
class StrictSkippedCall(Rule):
    code = "EXL211"
    name = "strict-export-skipped-call"
    severity = Severity.ERROR
    exporters = ("export-strict",)
    summary = "A call strict torch.export will not trace: compiler.disable'd functions, torch.jit.fork, stateful hooks."

    def check(self, ctx):
        text = ctx.text
        if not any(s in text for s in ("disable", "fork", "register_hook")):
            self._cross_file(ctx)
            return ()
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ""
                if q in _FORK:
                    ctx.report(
                        call.node,
                        f"`{snippet(ctx, call.node)}`: strict torch.export (dynamo) does not trace `{q}` ('Attempted "
                        "to call function marked as skipped'); non-strict torch.export and both ONNX exporters run it "
                        "inline (measured, torch 2.13). Call the function directly (fork/wait only parallelise "
                        "TorchScript), or export with strict=False.",
                    )
                    continue
                if call.method == "register_hook" and call.receiver_kind in TENSORISH and call.node.args:
                    stmt = _hook_side_effects(ctx, fn, call.node.args[0].value)
                    if stmt is not None:
                        ctx.report(
                            stmt,
                            f"this gradient hook, registered in forward (`{snippet(ctx, call.node)}`), changes module "
                            "state: strict torch.export fails here ('HOP: Unsafe side effect'); non-strict "
                            "torch.export and the ONNX exporters drop the hook (measured, torch 2.13). Register "
                            "gradient hooks outside the exported forward (they only matter for a backward pass).",
                        )
                    continue
                target = _callee(ctx, fn, call)
                if target is None:
                    continue
                dq = _disabled(ctx, target)
                if dq is None:
                    continue
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` calls `{target.name.value}`, decorated with `@{dq}`: strict "
                    "torch.export (dynamo) refuses to run it ('Skip calling `torch.compiler.disable()`d function'); "
                    "non-strict torch.export and both ONNX exporters trace it (measured, torch 2.13). Export with "
                    "strict=False, or drop the decorator on the export path.",
                )
        self._cross_file(ctx)
        return ()

    def _cross_file(self, ctx) -> None:
        """Calls that resolve to a function, an inherited method or a submodule's ``forward``
        defined in another project file decorated with ``@torch.compiler.disable``
        (``semantics.decorated``)."""
        if ctx.project is None:
            return
        from exportlint.semantics.decorated import disabled_by

        pc = ctx.project_calls()
        seen: set = set()
        sites = [(facts, call, target) for facts, call, target, _, _ in pc["calls"]] + list(pc["forwards"])
        for _facts, call, target in sites:
            if id(call) in seen:
                continue
            dq = disabled_by(ctx.project, target, pc["deps"])
            if dq is None:
                continue
            seen.add(id(call))
            where = os.path.basename(target.path)
            ctx.report(
                call,
                f"`{snippet(ctx, call)}` calls `{target.qual}` ({where}), decorated with `@{dq}`: strict "
                "torch.export (dynamo) refuses to run it ('Skip calling `torch.compiler.disable()`d function'); "
                "non-strict torch.export and both ONNX exporters trace it (measured, torch 2.13). Export with "
                "strict=False, or drop the decorator on the export path.",
            )


# ---------------------------------------------------------------------------------------
# EXL212
# ---------------------------------------------------------------------------------------

_GRAD = frozenset({"torch.autograd.grad"})


def _forward_inputs(fn) -> set:
    if not fn.is_forward:
        return set()
    ps = list(fn.node.params.posonly_params) + list(fn.node.params.params)
    names = [p.name.value for p in ps]
    if fn.self_name is not None and names and names[0] == fn.self_name:
        names = names[1:]
    return {n for n in names if fn.env.get(n) in TENSORISH}


@register
class AutogradInForward(Rule):
    code = "EXL212"
    name = "autograd-in-forward"
    severity = Severity.ERROR
    summary = "torch.autograd.grad (or requires_grad_ on an input) inside forward: the exporters trace no backward."

    def check(self, ctx):
        if "grad" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            inputs = None
            for call in fn.calls:
                q = call.qualname or ""
                if q in _GRAD:
                    ctx.report(
                        call.node,
                        f"`{snippet(ctx, call.node)}` differentiates inside forward: no exporter captures a backward "
                        "pass (torch.export non-strict and onnx-dynamo: 'We found a fake tensor in the exported "
                        "program constant's list'; strict: 'using `torch.autograd.grad` with "
                        "`torch._dynamo.config.trace_autograd_ops=False`'; legacy: 'Cannot insert a Tensor that "
                        "requires grad as a constant') (measured, torch 2.13). Export the energy/score model and take "
                        "the gradient outside, or write the derivative out in forward.",
                    )
                    continue
                if call.method != "requires_grad_" or call.receiver_kind not in TENSORISH:
                    continue
                recv = call.node.func.value if isinstance(call.node.func, cst.Attribute) else None
                if inputs is None:
                    inputs = _forward_inputs(fn)
                if not isinstance(recv, cst.Name) or recv.value not in inputs:
                    continue
                if call.node.args and literal_value(call.node.args[0].value) is False:
                    continue
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` on a forward input: strict torch.export fails ('Unsupported "
                    "Tensor.requires_grad_() call'); the others ignore it (measured, torch 2.13). Leave gradient "
                    "bookkeeping out of the exported forward.",
                    exporters=("export-strict",),
                )
        return ()


# ---------------------------------------------------------------------------------------
# EXL125
# ---------------------------------------------------------------------------------------

_CACHES = frozenset({"functools.lru_cache", "functools.cache"})


def _cached(ctx, node: cst.FunctionDef) -> bool:
    return any(q in _CACHES for q, _ in _decorators(ctx, node))


@register
class LruCacheDynamicSize(Rule):
    code = "EXL125"
    name = "lru-cache-dynamic-size"
    severity = Severity.ERROR
    exporters = ("export-nonstrict",)
    summary = "A functools.lru_cache function called with a size of a dynamic dimension (SymInt is unhashable)."

    def check(self, ctx):
        if "cache" not in ctx.text:
            return ()
        dims = None
        for fn in ctx.model.functions:
            for call in fn.calls:
                target = _callee(ctx, fn, call)
                if target is None or not _cached(ctx, target):
                    continue
                sizes = [a.value for a in call.node.args if not a.star and fn.kind(a.value) == SHAPE]
                if not sizes:
                    continue
                if dims is None:
                    dims = Dims(ctx)
                    if dims.mode is False:
                        return ()
                level = max(size_level(dims, fn, s) for s in sizes)
                if not level:
                    continue
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` calls `{target.name.value}`, cached with `functools.lru_cache`, with "
                    f"a size of a dimension that {'is declared' if level == DYN else 'may be'} dynamic: non-strict "
                    "torch.export passes a SymInt, which the cache cannot hash ('TypeError: unhashable type: "
                    "non-nested SymInt'); strict torch.export and the ONNX exporters trace through the cache, and "
                    "static sizes export (measured, torch 2.13). Call the uncached function on the export path "
                    "(`fn.__wrapped__(...)`) or drop the cache.",
                    severity=None if level == DYN else Severity.WARNING,
                )
        return ()
