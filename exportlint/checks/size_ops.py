"""EXL134 size-through-torch-op and EXL147 function-apply-module-argument (issue #10, zoo16).

EXL134: ``x.view(b, torch.div(s, k, rounding_mode="trunc"), k, d)`` where ``s`` is a size. ``torch.div``
of Python numbers makes a 0-d tensor; handed to ``view`` as a size it is read back as data, an
unbacked symbol of torch.export, and the view's stride computation then needs a guard on it.
Measured with torch 2.13.0 (bench/labels/probes_zoo16/probe_torch_div_size.py, .jsonl next to it):
on a non-contiguous tensor (transformers' longformer / LED ``_chunk``, after ``transpose(...).reshape``)
with the split dim dynamic, non-strict fails "Could not guard on data-dependent expression 4*u0 < 8";
the same view with Python ``s // 4`` passes, and so does the ``torch.div`` form with static shapes or
on a contiguous tensor. So a warning: whether the tensor is contiguous is not known statically.
Reported at the ``view`` (the call that fails).

EXL147: ``SomeFunction.apply(x, self.layers, ...)`` where ``SomeFunction`` is a
``torch.autograd.Function`` of the file without ``symbolic`` and an argument is a submodule (or a
list/tuple literal of submodules). Measured with torch 2.13.0
(bench/labels/probes_zoo16/probe_function_module_arg.py): the legacy ONNX exporter fails with
"RuntimeError: unordered_map::at" (transformers' reformer ``_ReversibleFunction.apply(hidden_states,
self.layers, ...)``), dynamic or static shapes; a Function handed only tensors and numbers passes.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import applies_without_symbolic, snippet
from exportlint.findings import Severity
from exportlint.semantics.kinds import DATA, MODULE, SHAPE, TENSORISH
from exportlint.semantics.model import iter_nodes

_TORCH_DIV = frozenset({"torch.div"})


def _torch_div_of_sizes(fn, e: cst.BaseExpression) -> bool:
    """``torch.div(a, b, rounding_mode=...)`` whose operands are sizes or numbers, one a size."""
    if not isinstance(e, cst.Call):
        return False
    q = next((c.qualname for c in fn.calls if c.node is e), None)
    if q not in _TORCH_DIV:
        return False
    if not any(a.keyword is not None and a.keyword.value == "rounding_mode" for a in e.args):
        return False  # true division: a float tensor, never a size
    ops = [a.value for a in e.args if a.keyword is None and not a.star]
    if len(ops) != 2 or any(a.star for a in e.args):
        return False
    kinds = [fn.kind(o) for o in ops]
    if any(k in TENSORISH or k == DATA for k in kinds):
        return False
    return SHAPE in kinds


def bound_once(fn, name: str) -> Optional[cst.BaseExpression]:
    """The value of the one plain ``name = value`` of the function, None when bound otherwise or more."""
    value, n = None, 0
    for st in iter_nodes(fn.node.body):
        t = type(st)
        if t is cst.Assign:
            for tgt in st.targets:
                for x in iter_nodes(tgt.target):
                    if type(x) is cst.Name and x.value == name:
                        n += 1
                        value = st.value if tgt.target is x else None
        elif t in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr):
            if any(type(x) is cst.Name and x.value == name for x in iter_nodes(st.target)):
                n += 1
    return value if n == 1 else None


@register
class SizeThroughTorchOp(Rule):
    code = "EXL134"
    name = "size-through-torch-op"
    severity = Severity.WARNING
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo")
    summary = "A view size computed with torch.div on sizes: torch.export reads it as data (an unbacked size)."

    def check(self, ctx):
        if "div(" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            for call in fn.calls:
                if call.method != "view" or call.receiver_kind not in TENSORISH:
                    continue
                for a in call.node.args:
                    if a.keyword is not None or a.star:
                        continue
                    v = a.value
                    src = v
                    if isinstance(v, cst.Name):
                        src = bound_once(fn, v.value)
                        if src is None:
                            continue
                    if not _torch_div_of_sizes(fn, src):
                        continue
                    ctx.report(
                        call.node,
                        f"`{snippet(ctx, src)}` computes a view size with a torch op on Python sizes: it is a 0-d "
                        "tensor, which torch.export reads back as data (an unbacked size). Where the view must "
                        "guard on it (a non-contiguous tensor with that dim dynamic) torch.export and onnx-dynamo "
                        "fail ('Could not guard on data-dependent expression 4*u0 < 8'). Use Python integer "
                        "division (`s // k`), which stays a symbolic size.",
                    )
                    break
        return ()


def _module_arg(fn, e: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    if isinstance(e, (cst.List, cst.Tuple)):
        for el in e.elements:
            if not isinstance(el, cst.StarredElement) and _module_arg(fn, el.value) is not None:
                return e
        return None
    if isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and e.value.value == "self" \
            and fn.kind(e) == MODULE:
        return e
    return None


@register
class FunctionApplyModuleArgument(Rule):
    code = "EXL147"
    name = "function-apply-module-argument"
    severity = Severity.ERROR
    exporters = ("onnx-legacy",)
    summary = "An autograd.Function is applied to submodules: the legacy ONNX exporter fails (unordered_map::at)."

    def check(self, ctx):
        if ".apply(" not in ctx.text:
            return ()
        for fn, call, c in applies_without_symbolic(ctx):
            hit = None
            for a in call.node.args:
                if a.star:
                    hit = None
                    break
                hit = hit or _module_arg(fn, a.value)
            if hit is None:
                continue
            ctx.report(
                call.node,
                f"`{c.name}.apply` is handed a submodule (`{snippet(ctx, hit)}`): the legacy ONNX exporter "
                "records the Function as one traced op whose inputs must be tensors and fails "
                "('RuntimeError: unordered_map::at'); torch.export and onnx-dynamo trace through it. Call the "
                "submodules outside the Function (or export with dynamo=True).",
            )
        return ()
