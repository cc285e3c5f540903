"""EXL209: activation checkpointing (``torch.utils.checkpoint``) run unconditionally in forward.

Measured with torch 2.13: ``checkpoint(fn, x, use_reentrant=False)`` (and ``True``) in forward
fails strict torch.export ("RuntimeError: _checkpoint_context_fn", while executing
``torch.ops.higher_order.tag_activation_checkpoint``); ``checkpoint_sequential`` fails it too
("Unsupported: Attempted to call function marked as skipped"). Non-strict torch.export,
onnx-dynamo and onnx-legacy export both. Under ``if self.training`` (or any other condition:
``if self.grad_checkpointing``, a flag that is off unless the user turns it on) the call is not
reported: models gate checkpointing on training or on an opt-in flag; nor in helpers (timm's
``checkpoint_seq`` runs only when a forward calls it, under such a flag). Except when the flag's
value is known: ``if self.use_checkpoint:`` where every construction of the class in the project
sets it to the same literal (``BasicLayer(dim, use_checkpoint=True)`` in another file, or passed
down through the builders' own constructors: ``semantics.ctor_values``); True runs the branch.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.model import body_statements

_CHECKPOINT = frozenset({"torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential"})


def _unconditional_calls(stmts, flag=None) -> list[cst.Call]:
    """Calls of these statements that run whenever the statements do: not in an `if` / `while`
    body, a conditional expression, a lambda or a nested def. ``flag(name)``: the constant
    ``self.<name>`` holds in every instance the project builds (``ctor_values.UNKNOWN`` when not
    known); an ``if self.<name>:`` on a known flag runs the branch it selects."""
    out: list[cst.Call] = []
    for st in stmts:
        if isinstance(st, cst.If) and flag is not None:
            v = _flag_value(st.test, flag)
            if v is True:
                out.extend(_unconditional_calls(body_statements(st.body), flag))
            elif v is False and isinstance(st.orelse, cst.Else):
                out.extend(_unconditional_calls(body_statements(st.orelse.body), flag))
            continue
        if isinstance(st, (cst.If, cst.While, cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(st, (cst.For, cst.With)):
            out.extend(_unconditional_calls(body_statements(st.body), flag))
            continue
        if isinstance(st, cst.Try):
            out.extend(_unconditional_calls(body_statements(st.body), flag))
            continue
        if not isinstance(st, cst.SimpleStatementLine):
            continue
        stack: list[cst.CSTNode] = list(st.body)
        while stack:
            n = stack.pop()
            if isinstance(n, (cst.IfExp, cst.Lambda, cst.BooleanOperation)):
                continue
            if isinstance(n, cst.Call):
                out.append(n)
            stack.extend(n.children)
    return out


def _flag_value(test, flag) -> Optional[bool]:
    """True / False when ``test`` is ``self.<name>`` (or ``not self.<name>``) of a flag whose
    constant is a bool; None otherwise."""
    neg = False
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        neg, test = True, test.expression
    path = _self_path(test)
    if path is None:
        return None
    v = flag(path)
    if not isinstance(v, bool):
        return None
    return (not v) if neg else v


def _self_path(e) -> Optional[list]:
    """``self.a`` -> ["a"], ``self.config.a`` -> ["config", "a"], ``getattr(self.config, "a",
    default)`` -> ["config", "a"]; None for anything else."""
    if (isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "getattr"
            and len(e.args) in (2, 3)):
        base = _self_path(e.args[0].value)
        name = e.args[1].value
        if base is None or not isinstance(name, cst.SimpleString):
            return None
        return base + [name.evaluated_value]
    parts: list = []
    while isinstance(e, cst.Attribute):
        parts.append(e.attr.value)
        e = e.value
    if isinstance(e, cst.Name) and e.value == "self" and parts:
        return list(reversed(parts))
    return None


@register
class CheckpointInForward(Rule):
    code = "EXL209"
    name = "activation-checkpoint-in-forward"
    severity = Severity.ERROR
    exporters = ("export-strict",)
    summary = "torch.utils.checkpoint called unconditionally in forward: strict torch.export fails."

    def check(self, ctx):
        if "checkpoint" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            # (a helper's checkpoint runs only when its caller calls it, often under an opt-in
            # flag: `if self.grad_checkpointing: x = checkpoint_seq(self.blocks, x)`)
            if fn.why not in ("forward", "export-call") and not (
                    fn.cls is not None and fn.node.name.value == "forward"):
                continue  # (a module's forward reached through a ModuleList is an entry too)
            if not any((c.qualname or "") in _CHECKPOINT for c in fn.calls):
                continue
            for call in _unconditional_calls(body_statements(fn.node.body), self._flags(ctx, fn)):
                q = fn.imports.resolve(call.func) or ""
                if q not in _CHECKPOINT:
                    continue
                ctx.report(
                    call,
                    f"`{snippet(ctx, call)}` runs activation checkpointing on the export path: strict "
                    "torch.export fails on it ('RuntimeError: _checkpoint_context_fn' for `checkpoint`, "
                    "'Attempted to call function marked as skipped' for `checkpoint_sequential`). "
                    "Checkpointing only saves memory in training: call the wrapped function directly, or "
                    "only under `if self.training`. Non-strict torch.export and the ONNX exporters cope.",
                )
        return ()

    @staticmethod
    def _flags(ctx, fn):
        """``self.<name>`` -> the constant every construction of ``fn``'s class in the project
        sets it to (``semantics.ctor_values``), or None without a project."""
        if ctx.project is None or fn.cls is None:
            return None
        from exportlint.semantics.ctor_values import attr_constant

        fi = ctx.project.index_path(ctx.path)
        deps = ctx.project_calls()["deps"]
        return lambda name: attr_constant(ctx.project, fi, fn.cls.name, name, deps)
