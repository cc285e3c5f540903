"""EXL119: torch.nn attention modules under the legacy exporter with dynamic shapes.

Measured with torch 2.13 (rules/EXL119.md): ``nn.MultiheadAttention`` (batch-first or not),
``nn.TransformerEncoderLayer`` / ``nn.TransformerEncoder`` (with or without nested tensors) and
``nn.TransformerDecoderLayer`` exported with ``torch.onnx.export(..., dynamo=False)`` and
``dynamic_axes`` on batch and sequence: the ONNX model runs at the example sizes and fails in
onnxruntime at another sequence length ("Non-zero status code returned while running Reshape
node ... self_attn/Reshape_4"): the tracer bakes the sequence length into the attention's
reshapes. Another batch size runs. torch.export and onnx-dynamo keep the sequence dynamic.

A warning (the sequence dim may be static: ViT's patches), only for projects that declare
dynamic dims; reported where forward calls the module. Not reported for a batch-first module
(``batch_first=True``, on the layer a ``TransformerEncoder`` / ``Decoder`` stacks) when every
dim the declarations make dynamic is dim 0: a batch-first model's batch (measured: another batch
size runs).
"""

from __future__ import annotations

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import (
    assignments_in_scope,
    declared_dims,
    declares_dynamic,
    snippet,
    torch_submodule_calls,
)
from exportlint.semantics.model import literal_value
from exportlint.findings import Severity

_NAMES = ("MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
          "TransformerDecoder", "Transformer")
_MODULES = frozenset({f"torch.nn.{n}" for n in _NAMES}
                     | {f"torch.nn.modules.activation.{_NAMES[0]}"}
                     | {f"torch.nn.modules.transformer.{n}" for n in _NAMES[1:]})


@register
class AttentionModuleLegacyDynamic(Rule):
    code = "EXL119"
    name = "attention-module-dynamic-sequence-legacy"
    severity = Severity.WARNING
    exporters = ("onnx-legacy",)
    summary = "nn.MultiheadAttention / nn.Transformer* layers: the legacy exporter bakes the sequence length."

    def check(self, ctx):
        if "Multihead" not in ctx.text and "Transformer" not in ctx.text:
            return ()
        if declares_dynamic(ctx) is not True:
            return ()
        for fn, call, ctor, q in torch_submodule_calls(ctx, _MODULES):
            dyn = declared_dims(ctx, fn.cls.name)
            if dyn and all(d == {0} for d in dyn.values()) and _batch_first(ctx, fn.cls, ctor):
                continue  # only the batch is dynamic
            ctx.report(
                call.node,
                f"`{snippet(ctx, call.node)}` runs an nn.{q.rsplit('.', 1)[-1]}: the legacy ONNX exporter "
                "bakes the sequence length into its attention reshapes, so with a dynamic sequence the "
                "model fails in onnxruntime at other lengths ('Non-zero status code returned while running "
                "Reshape node'); a dynamic batch is fine. Export with torch.export / onnx-dynamo "
                "(`dynamo=True`), or with a fixed sequence length.",
            )
        return ()


def _batch_first(ctx, cls, ctor: cst.Call, depth: int = 0) -> bool:
    """Whether a module built by `ctor` takes batch-first inputs: `batch_first=True` on it, or on
    the layer a TransformerEncoder/Decoder stacks (a call, or a name assigned in __init__)."""
    for a in ctor.args:
        if a.keyword is not None and a.keyword.value == "batch_first":
            return literal_value(a.value) is True
    q = ctx.model.imports.resolve(ctor.func) or ""
    if depth or not q.endswith(("TransformerEncoder", "TransformerDecoder")) or not ctor.args:
        return False
    layer = ctor.args[0].value
    if isinstance(layer, cst.Name):
        init = cls.methods.get("__init__")
        vals = [v for n, v, _ in assignments_in_scope(init) if n == layer.value] if init is not None else []
        layer = vals[0] if len(vals) == 1 else None
    return isinstance(layer, cst.Call) and _batch_first(ctx, cls, layer, depth + 1)
