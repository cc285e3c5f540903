"""EXL150 zero-dim-tensor-index: indexing a tensor with a 0-d integer tensor (strict export).

Measured with torch 2.13 (bench/labels/probes_cases20/probe_scalar_index.py, ``.out``): indexing
any tensor (a parameter, a buffer, an input, a computed one) with a 0-d integer tensor that holds
data, ``boxes[scores.argmax()]``, ``table[torch.argmax(s)]``, ``table[i, :]``, ``table[:, i]``,
makes export-strict fail ("Could not extract specialized integer from data-dependent expression u0
... Dynamo failed to run FX node with fake tensors: call_function <built-in function getitem>");
export-nonstrict passes (fixed by pytorch/pytorch#184625), and so do a 1-d index
(``argmax(dim=0, keepdim=True)``), ``.item()``, ``index_select`` and ``F.embedding``. Held-out:
bench/cases/pkg_scalar_tensor_row_index (pytorch/pytorch#182345), there with the index a 0-d
forward input (not followed here: the example inputs' ranks are not read, see below).

Reported (an error naming export-strict) where the index is known 0-d and integer: ``t.argmax()`` /
``t.argmin()`` with no argument on a tensor, ``torch.argmax(t)`` / ``torch.argmin(t)`` with no
``dim``, inline or through a local name the function binds once; only where it is read
(``t[i]``), not assigned to (``t[i] = v``, not measured). Not reported: indices whose rank is
not known (a forward input, a helper's parameter: a 1-d index exports).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.checks.size_ops import bound_once
from exportlint.findings import Severity
from exportlint.semantics.kinds import TENSORISH
from exportlint.semantics.model import iter_nodes

_ARG = frozenset({"argmax", "argmin"})
_TORCH_ARG = frozenset({"torch.argmax", "torch.argmin"})


def _zero_dim_int(fn, e: cst.BaseExpression, depth: int = 0) -> Optional[cst.Call]:
    """The ``argmax``/``argmin`` call (0-d, int64) that ``e`` is, or that the one binding of the
    name ``e`` is; None otherwise."""
    if isinstance(e, cst.Name) and depth == 0:
        v = bound_once(fn, e.value)
        return _zero_dim_int(fn, v, 1) if v is not None else None
    if not isinstance(e, cst.Call) or not isinstance(e.func, cst.Attribute) or e.func.attr.value not in _ARG:
        return None
    q = next((c.qualname for c in fn.calls if c.node is e), None)
    if q in _TORCH_ARG:
        # torch.argmax(t): one positional argument, no dim
        if len(e.args) == 1 and e.args[0].keyword is None and not e.args[0].star:
            return e
        return None
    if q is not None and q.startswith("torch.") and not q.startswith("torch.Tensor."):
        return None
    # t.argmax() with no argument on a tensor (a numpy array's argmax gives a Python int)
    if not e.args and fn.kind(e.func.value) in TENSORISH:
        return e
    return None


def _stored(fn) -> set:
    """ids of the subscripts the function assigns to (``t[i] = v``, ``t[i] += v``, ``del t[i]``)."""
    out: set = set()
    for st in iter_nodes(fn.node.body):
        if isinstance(st, cst.Assign):
            for t in st.targets:
                out.add(id(t.target))
        elif isinstance(st, (cst.AugAssign, cst.AnnAssign)):
            out.add(id(st.target))
        elif isinstance(st, cst.Del):
            out.add(id(st.target))
    return out


@register
class ZeroDimTensorIndex(Rule):
    code = "EXL150"
    name = "zero-dim-tensor-index"
    severity = Severity.ERROR
    exporters = ("export-strict",)
    summary = "Indexing a tensor with a 0-d integer tensor (argmax()): strict torch.export fails."

    def check(self, ctx):
        if "argm" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            stored = None
            for node in iter_nodes(fn.node.body):
                if not isinstance(node, cst.Subscript):
                    continue
                for el in node.slice:
                    if not isinstance(el.slice, cst.Index):
                        continue
                    src = _zero_dim_int(fn, el.slice.value)
                    if src is None:
                        continue
                    if stored is None:
                        stored = _stored(fn)
                    if id(node) in stored or fn.kind(node.value) not in TENSORISH:
                        break
                    ctx.report(
                        node,
                        f"`{snippet(ctx, node)}` indexes a tensor with `{snippet(ctx, src)}`, a 0-d integer "
                        "tensor: strict torch.export fails ('Could not extract specialized integer from "
                        "data-dependent expression u0', at the indexing); non-strict export and the ONNX "
                        "exporters pass. Index with a 1-d tensor (`argmax(dim=0, keepdim=True)`, then "
                        "`squeeze(0)`), `index_select(0, i.view(1))`, or export with `strict=False`.",
                    )
                    break
        return ()
