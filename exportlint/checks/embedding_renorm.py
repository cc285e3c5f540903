"""EXL122: an embedding lookup with ``max_norm`` exported by the legacy exporter.

Measured with torch 2.13 (rules/EXL122.md): ``nn.Embedding(20, 8, max_norm=1.0)`` (and
``F.embedding(ids, w, max_norm=1.0)``) exported with ``torch.onnx.export(..., dynamo=False)``
becomes a single ``Gather``: the renormalisation ran once, in place, on the rows the example
looks up, and is not in the graph. Tokens the example did not use come out un-normalised in
onnxruntime (max abs diff 1.17 / 1.62 against eager). torch.export (strict and non-strict) and
onnx-dynamo match eager on unseen tokens.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet, torch_submodule_calls
from exportlint.findings import Severity
from exportlint.semantics.model import literal_value

_MODULES = ("torch.nn.Embedding", "torch.nn.modules.sparse.Embedding", "torch.nn.modules.Embedding")
_FUNCTIONAL = ("torch.nn.functional.embedding",)


def _max_norm(call: cst.Call, position: int) -> Optional[cst.BaseExpression]:
    """The max_norm argument when it is a number."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "max_norm":
            v = a.value
            break
    else:
        pos = [a.value for a in call.args if a.keyword is None and not a.star]
        if any(a.star for a in call.args) or position >= len(pos):
            return None
        v = pos[position]
    # a number written there: an attribute or parameter (`self.max_norm`, defaulting to None in
    # a wrapper's __init__) says nothing about whether it is set
    lit = literal_value(v)
    return v if isinstance(lit, (int, float)) and not isinstance(lit, bool) else None


_MESSAGE = ("`{src}` renormalises the looked-up rows (`max_norm`) in place: the legacy ONNX exporter "
            "runs that once at export time on the rows the example uses and exports a plain Gather, so "
            "tokens the example did not contain come out un-normalised (measured, torch 2.13: onnxruntime "
            "differs from eager by up to 1.2). torch.export and onnx-dynamo keep the renormalisation. "
            "Export with dynamo=True, or renormalise the weight once before export and drop `max_norm`.")


@register
class EmbeddingMaxNormLegacy(Rule):
    code = "EXL122"
    name = "embedding-max-norm-legacy"
    severity = Severity.ERROR
    exporters = ("onnx-legacy",)
    summary = "nn.Embedding / F.embedding with max_norm: the legacy exporter drops the renormalisation."

    def check(self, ctx):
        seen: set[int] = set()
        for _fn, call, ctor, _q in torch_submodule_calls(ctx, _MODULES):
            # nn.Embedding(num_embeddings, embedding_dim, padding_idx=None, max_norm=None, ...)
            if id(ctor) in seen or _max_norm(ctor, 3) is None:
                continue
            seen.add(id(ctor))
            ctx.report(call.node, _MESSAGE.format(src=snippet(ctx, call.node)))
        for fn in ctx.model.functions:
            for call in fn.calls:
                # F.embedding(input, weight, padding_idx=None, max_norm=None, ...)
                if (call.qualname or "") in _FUNCTIONAL and _max_norm(call.node, 3) is not None:
                    ctx.report(call.node, _MESSAGE.format(src=snippet(ctx, call.node)))
        return ()
