"""EXL209: activation checkpointing (``torch.utils.checkpoint``) run unconditionally in forward.

Measured with torch 2.13: ``checkpoint(fn, x, use_reentrant=False)`` (and ``True``) in forward
fails strict torch.export ("RuntimeError: _checkpoint_context_fn", while executing
``torch.ops.higher_order.tag_activation_checkpoint``); ``checkpoint_sequential`` fails it too
("Unsupported: Attempted to call function marked as skipped"). Non-strict torch.export,
onnx-dynamo and onnx-legacy export both. Under ``if self.training`` (or any other condition:
``if self.grad_checkpointing``, a flag that is off unless the user turns it on) the call is not
reported: models gate checkpointing on training or on an opt-in flag; nor in helpers (timm's
``checkpoint_seq`` runs only when a forward calls it, under such a flag).
"""

from __future__ import annotations

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.model import body_statements

_CHECKPOINT = frozenset({"torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential"})


def _unconditional_calls(stmts) -> list[cst.Call]:
    """Calls of these statements that run whenever the statements do: not in an `if` / `while`
    body, a conditional expression, a lambda or a nested def."""
    out: list[cst.Call] = []
    for st in stmts:
        if isinstance(st, (cst.If, cst.While, cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(st, (cst.For, cst.With)):
            out.extend(_unconditional_calls(body_statements(st.body)))
            continue
        if isinstance(st, cst.Try):
            out.extend(_unconditional_calls(body_statements(st.body)))
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
            if fn.why not in ("forward", "export-call"):
                continue
            if not any((c.qualname or "") in _CHECKPOINT for c in fn.calls):
                continue
            for call in _unconditional_calls(body_statements(fn.node.body)):
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
