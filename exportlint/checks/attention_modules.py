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

The error's sequence source may also be a parameter of a block's ``forward`` that a declared
model hands its input with the sequence dim kept (``carried_dims``, semantics/dim_flow.py;
cases20: bench/cases/pkg_mha_bool_mask_dynamic, from pytorch/pytorch#120075, an
``nn.MultiheadAttention`` wrapper in another file: legacy diverges at the wrapper's call).
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
    with_carried,
)
from exportlint.semantics.model import iter_nodes, literal_value
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
            # the dims a declared model hands this block's forward count as its own (cases20: a
            # wrapper module around the attention, `self.attn(x, mask)`, in another file)
            seq = _declared_sequence(ctx, fn, call.node, ctor, with_carried(ctx, fn, dyn))
            ctx.report(
                call.node,
                f"`{snippet(ctx, call.node)}` runs an nn.{q.rsplit('.', 1)[-1]}: the legacy ONNX exporter "
                "bakes the sequence length into its attention reshapes, so with a dynamic sequence the "
                "model fails in onnxruntime at other lengths ('Non-zero status code returned while running "
                "Reshape node'); a dynamic batch is fine. "
                + (f"Its sequence is dim {seq[1]} of input `{seq[0]}`, which the export declares dynamic. "
                   if seq is not None else "")
                + "Export with torch.export / onnx-dynamo (`dynamo=True`), or with a fixed sequence length.",
                severity=Severity.ERROR if seq is not None else None,
            )
        return ()


#: submodules whose output keeps every dim of their input but the last (Linear) or all (the rest),
#: and Embedding, which appends one
_KEEP_ALL = frozenset(f"torch.nn.{n}" for n in (
    "LayerNorm", "Dropout", "ReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Identity", "Embedding"))
_LINEAR = frozenset({"torch.nn.Linear"})


def _declared_sequence(ctx, fn, call: cst.Call, ctor: cst.Call, dyn: dict):
    """(input, dim) when the attention module's first argument is a forward input, or one passed
    through Embedding / LayerNorm / Dropout / activations / Linear submodules (also an
    ``nn.Sequential`` of them; a Linear only when the declared rank shows the sequence dim is not
    the last), whose sequence dim (1 batch-first, else 0) the export declares dynamic. Measured
    (rules/EXL119.md; bench/cases/transformer_seq_first_batch, mha_seq_first_mask,
    transformer_encoder_dynamic_seq, transformer_layer_pre_linear): the legacy ONNX model fails
    or diverges at another sequence length every time."""
    if fn.node.name.value != "forward" or not dyn:
        return None
    pos = [a.value for a in call.args if a.keyword is None and not a.star]
    if not pos:
        return None
    bf = _batch_first_known(ctx, fn.cls, ctor)
    if bf is None:
        return None  # the stacked layer is not seen: which dim is the sequence is not known
    seq = 1 if bf else 0
    nodes = fn.nodes()
    at = next((i for i, n in enumerate(nodes) if n is call), len(nodes))
    src = _input_dim(ctx, fn, pos[0], seq, nodes, at, 0)
    if src is not None and seq in dyn.get(src, ()):
        return src, seq
    return None


def _rank(ctx, fn, name: str):
    pdyn = getattr(ctx, "project_dynamic", None) or {}
    for d in pdyn.get(fn.cls.name, {}).get(name, ()):
        if isinstance(d, str) and d.startswith("rank:") and d[5:].isdigit():
            return int(d[5:])
    return None


def _input_dim(ctx, fn, e, dim: int, nodes, at: int, depth: int):
    """The forward input whose dim ``dim`` the value ``e`` (read at node index ``at``) carries at
    the same index, or None."""
    if depth > 6:
        return None
    if isinstance(e, cst.Name):
        last = None
        for i in range(min(at, len(nodes)) - 1, -1, -1):
            n = nodes[i]
            if isinstance(n, (cst.AugAssign, cst.AnnAssign)) and isinstance(n.target, cst.Name) \
                    and n.target.value == e.value:
                return None
            if isinstance(n, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == e.value
                                                 for t in n.targets):
                if at < len(nodes) and any(m is nodes[at] for m in iter_nodes(n.value)):
                    continue  # the statement of the read itself (`x = self.layer(x)`)
                last = i
                break
            if isinstance(n, (cst.Assign, cst.For)) and any(isinstance(m, cst.Name) and m.value == e.value
                                                            for t in ([x.target for x in n.targets]
                                                                      if isinstance(n, cst.Assign) else [n.target])
                                                            for m in iter_nodes(t)):
                return None  # bound by unpacking or a loop
        if last is None:
            ps = list(fn.node.params.posonly_params) + list(fn.node.params.params)
            return e.value if any(p.name.value == e.value for p in ps[1:]) else None
        return _input_dim(ctx, fn, nodes[last].value, dim, nodes, last, depth + 1)
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and isinstance(e.func.value, cst.Name) \
            and e.func.value.value == fn.self_name and fn.cls is not None:
        fact = fn.cls.find_attr(e.func.attr.value)
        args = [a.value for a in e.args if a.keyword is None and not a.star]
        if fact is None or fact.what != "submodule" or not isinstance(fact.value, cst.Call) or len(args) != 1:
            return None
        if not _keeps(ctx, fn, fact.value, args[0], dim, nodes, at):
            return None
        return _input_dim(ctx, fn, args[0], dim, nodes, at, depth + 1)
    return None


def _keeps(ctx, fn, ctor: cst.Call, arg, dim: int, nodes, at: int) -> bool:
    q = ctx.model.imports.resolve(ctor.func) or ""
    if q in _KEEP_ALL:
        return True
    if q in _LINEAR:
        src = _input_dim(ctx, fn, arg, dim, nodes, at, 5)  # (only a direct input's rank is known)
        r = _rank(ctx, fn, src) if src is not None else None
        return r is not None and dim < r - 1
    if q == "torch.nn.Sequential":
        mods = [a.value for a in ctor.args if a.keyword is None and not a.star]
        return bool(mods) and all(isinstance(m, cst.Call) and _keeps(ctx, fn, m, arg, dim, nodes, at) for m in mods)
    return False


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


def _batch_first_known(ctx, cls, ctor: cst.Call, depth: int = 0):
    """`_batch_first`, or None where it cannot be told: a TransformerEncoder/Decoder stacking a
    layer that is not built in its call."""
    for a in ctor.args:
        if a.keyword is not None and a.keyword.value == "batch_first":
            v = literal_value(a.value)
            return v if isinstance(v, bool) else None
    q = ctx.model.imports.resolve(ctor.func) or ""
    if not q.endswith(("TransformerEncoder", "TransformerDecoder")):
        return False  # the default
    if depth or not ctor.args or ctor.args[0].keyword is not None:
        return None
    # (a layer passed as a local of `__init__` is not resolved: the engine's reduced text may drop
    # those statements, and a finding must not depend on the reduction)
    layer = ctor.args[0].value
    return _batch_first_known(ctx, cls, layer, depth + 1) if isinstance(layer, cst.Call) else None

