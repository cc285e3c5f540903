"""EXL152 topk-min-of-size: ``t.topk(min(c, t.shape[-1]))``, a ``k`` capped by a dynamic size.

``topk`` checks ``k <= size`` of its dim. With ``k = min(c, S)`` of a size ``S`` that the export
keeps symbolic, torch.export must prove ``Min(c, S) <= S`` over the declared range, and in torch
2.13 it does not: measured (bench/labels/probes_lead30/probe_chunk_topk.py, the dim declared
``Dim(min=2, max=64)``) strict and non-strict fail "Constraints violated (seq)! ... satisfy the
generated guard min(4, L['x'].size()[2]) <= L['x'].size()[2]"; a constant ``k`` passes, and so
does the same code with the dim declared ``min=4`` (``Min(4, S)`` is then 4). The ONNX exporters
pass. Held-out zoo line: transformers' sparse-attention indexer (DeepSeek-V3.2 style, copied into
AXK2, GLM-MoE-DSA, Mistral-Large-4 and others), ``topk = min(self.index_topk,
index_scores.shape[-1])`` then ``index_scores.topk(topk, dim=-1)`` (``modeling_axk2.py:276``).

Reported at the ``min(...)`` (where the guard comes from; the ``topk`` call when the ``min`` is
inline): an error when the size reads a dim the export declares dynamic (the forward's declared
input, or a tensor a declared model carries into a helper), silent when it reads one declared
static or the project exports fixed shapes, a warning when the dims are not known.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import all_declared_dims, declares_dynamic, param_names, snippet, with_carried
from exportlint.checks.control_flow import size_source
from exportlint.checks.size_ops import bound_once
from exportlint.findings import Severity
from exportlint.semantics.kinds import SHAPE
from exportlint.semantics.model import iter_nodes


def _k_arg(fn, call: cst.Call) -> Optional[cst.BaseExpression]:
    """``k`` of ``t.topk(k, ...)`` / ``torch.topk(t, k, ...)``; None for other calls."""
    f = call.func
    pos = None
    if isinstance(f, cst.Attribute) and f.attr.value == "topk":
        q = next((c.qualname for c in fn.calls if c.node is call), None)
        pos = 1 if q == "torch.topk" else 0
    if pos is None:
        return None
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "k":
            return a.value
    plain = [a for a in call.args if a.keyword is None]
    if any(a.star for a in plain) or len(plain) <= pos:
        return None
    return plain[pos].value


def _size_read(fn, e: cst.BaseExpression) -> bool:
    """A tensor's size: ``t.shape[d]``, ``t.size(d)``, or a name of that kind the function binds once."""
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape":
        return True
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "size" \
            and len(e.args) == 1 and e.args[0].keyword is None:
        return True
    if isinstance(e, cst.Name) and fn.kind(e) == SHAPE:
        v = bound_once(fn, e.value)
        return v is not None and not isinstance(v, cst.Name) and _size_read(fn, v)
    return False


def _min_of_size(fn, k: cst.BaseExpression) -> Optional[tuple[cst.Call, list]]:
    """(the ``min(...)``, its size operands) when ``k`` is, or names once, a builtin ``min`` of two
    or more values one of which is a tensor's size."""
    m = bound_once(fn, k.value) if isinstance(k, cst.Name) else k
    if not (isinstance(m, cst.Call) and isinstance(m.func, cst.Name) and m.func.value == "min"):
        return None
    ops = [a.value for a in m.args]
    if len(ops) < 2 or any(a.star or a.keyword is not None for a in m.args):
        return None
    sizes = [o for o in ops if _size_read(fn, o)]
    return (m, sizes) if sizes else None


@register
class TopkMinOfSize(Rule):
    code = "EXL152"
    name = "topk-min-of-size"
    severity = Severity.WARNING
    exporters = ("export-strict", "export-nonstrict")
    summary = "topk with k = min(c, size): torch.export cannot prove k <= size for a dynamic size."

    def check(self, ctx):
        if "topk" not in ctx.text or "min(" not in ctx.text:
            return ()
        if declares_dynamic(ctx) is False:
            return ()  # fixed shapes: the size is a constant, min() of it too
        for fn in ctx.model.functions:
            decl: Optional[dict] = None
            for call in iter_nodes(fn.node.body):
                if type(call) is not cst.Call:
                    continue
                k = _k_arg(fn, call)
                if k is None:
                    continue
                hit = _min_of_size(fn, k)
                if hit is None:
                    continue
                m, sizes = hit
                if decl is None:
                    decl = with_carried(ctx, fn, all_declared_dims(ctx, fn.cls.name)
                                        if fn.cls is not None and fn.node.name.value == "forward" else {})
                sev = Severity.WARNING
                known = []
                for s in sizes:
                    src = size_source(fn, bound_once(fn, s.value) or s if isinstance(s, cst.Name) else s,
                                      param_names(fn) | set(decl))
                    if src is not None and decl and src[0] in decl:
                        known.append(src[1] in decl[src[0]])
                if known and not any(known):
                    continue  # every size read is of a dim the export keeps static
                if any(known):
                    sev = Severity.ERROR
                at = m if k is not m else call
                ctx.report(
                    at,
                    f"`topk` with `k = {snippet(ctx, m)}`, capped by a tensor's size: with that dim dynamic "
                    "torch.export must prove k <= size and cannot ('Constraints violated ... satisfy the generated "
                    "guard min(4, s) <= s'). Declare the dim with `min=` at least the constant (then `min` is the "
                    "constant), or give `topk` a constant `k` when the size is never smaller.",
                    severity=sev,
                )
        return ()
