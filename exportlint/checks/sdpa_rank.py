"""EXL132 sdpa-not-4d-onnx-dynamo: ``F.scaled_dot_product_attention`` on a query, key or value
that is not 4-d.

Measured with torch 2.13.0 (bench/labels/probes_zoo14/probe_sdpa_rank.py, its .jsonl next to it):
q, k, v of shape (B, heads, T, N, C') from ``reshape(B, T, N, 3, heads, C').permute(3, 0, 4, 1, 2, 5)
.unbind(0)`` (timm's NesT, ``nest.py:93``): onnx-dynamo fails in its step 3/3 ("Error when
translating node %scaled_dot_product_attention"), with no mask, a bool mask or ``is_causal=True``,
with a dynamic batch or static shapes; so do 3-d (B*T, N, C) and 6-d q/k/v. torchlib's
translation asserts "only 4D query, key, and value are supported" (onnxscript
``aten_scaled_dot_product_attention``). torch.export (strict, non-strict) and the legacy exporter
pass and match eager; 4-d q/k/v pass all four.

The ranks are read only from sizes the function writes: ``view``/``reshape``/``permute``
with their sizes, ``unbind`` (one less), ``chunk``/``split``/``transpose``/``contiguous``/a product
with a number (the same), an integer subscript (one less), followed through the function's
assignments (a name assigned twice with other ranks is unknown). An error: the rank is exact.
Reported at the call.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.model import iter_nodes

_SDPA = ("torch.nn.functional.scaled_dot_product_attention", "torch._C._nn.scaled_dot_product_attention")
_SIZED = frozenset({"view", "reshape", "permute"})
_SAME = frozenset({"transpose", "contiguous", "float", "half", "to", "type_as", "clone", "detach", "mul", "div",
                   "softmax", "sigmoid"})
_SPLITS = frozenset({"chunk", "split", "tensor_split"})
#: the ranks measured to fail (probe_sdpa_rank.jsonl); 2-d and 7-d+ are not claimed
_MEASURED = frozenset({3, 5, 6})


def _sizes(call: cst.Call) -> Optional[int]:
    args = list(call.args)
    if not args or any(a.star or a.keyword is not None for a in args):
        return None
    if len(args) == 1:
        v = args[0].value
        if isinstance(v, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in v.elements):
            return len(v.elements)
        return None  # one size (a flatten to 1-d) or a shape object: not claimed
    return len(args)


def _number(e: cst.BaseExpression) -> bool:
    if isinstance(e, (cst.Integer, cst.Float)):
        return True
    if isinstance(e, cst.UnaryOperation):
        return _number(e.expression)
    return isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and e.value.value == "self" \
        and e.attr.value in ("scale", "scaling", "temperature")


def _statements(block):
    """The statements of a function body, nested blocks included (not nested functions or
    classes), without visiting expressions: small statements of each line, and For / With
    themselves (their targets bind names)."""
    todo = [block]
    while todo:
        b = todo.pop()
        for st in getattr(b, "body", ()):
            if isinstance(st, cst.SimpleStatementLine):
                yield from st.body
            elif isinstance(st, (cst.FunctionDef, cst.ClassDef)):
                continue
            elif isinstance(st, cst.BaseCompoundStatement):
                yield st
                todo.append(st.body)
                orelse = getattr(st, "orelse", None)
                if orelse is not None:
                    todo.append(orelse.body if not isinstance(orelse, cst.If) else cst.IndentedBlock(body=[orelse]))
                for h in getattr(st, "handlers", ()):
                    todo.append(h.body)
                fin = getattr(st, "finalbody", None)
                if fin is not None:
                    todo.append(fin.body)


#: (the rank of a name read inside one of its own definitions)
_SELF = -1


class _Ranks:
    """The written rank of the names one function assigns."""

    def __init__(self, fn: cst.FunctionDef) -> None:
        #: name -> [(value expression, how: "" plain, "unpack" a tuple target's item)]
        self.defs: dict[str, list] = {}
        for st in _statements(fn.body):
            if isinstance(st, cst.Assign):
                for tgt in st.targets:
                    t = tgt.target
                    if isinstance(t, cst.Name):
                        self.defs.setdefault(t.value, []).append((st.value if len(st.targets) == 1 else None, ""))
                    elif isinstance(t, (cst.Tuple, cst.List)):
                        for el in t.elements:
                            if isinstance(el.value, cst.Name):
                                self.defs.setdefault(el.value.value, []).append(
                                    (st.value, "star" if isinstance(el, cst.StarredElement) else "unpack"))
            elif isinstance(st, (cst.AugAssign, cst.AnnAssign)) and isinstance(st.target, cst.Name):
                self.defs.setdefault(st.target.value, []).append((None, ""))
            elif isinstance(st, (cst.For, cst.With)):
                targets = [st.target] if isinstance(st, cst.For) else [
                    it.asname.name for it in st.items if it.asname is not None]
                for t in targets:
                    for n in iter_nodes(t):
                        if isinstance(n, cst.Name):
                            self.defs.setdefault(n.value, []).append((None, ""))
        self._seen: set = set()

    def name(self, n: str, depth: int) -> Optional[int]:
        if n in self._seen:
            return _SELF  # `q = q * self.scale`: the rank the name has
        got = self.defs.get(n)
        if not got:
            return None
        self._seen.add(n)
        try:
            ranks = set()
            for v, how in got:
                if v is None or how == "star":
                    return None
                r = self.unpacked(v, depth + 1) if how == "unpack" else self.rank(v, depth + 1)
                if r is None:
                    return None
                if r != _SELF:
                    ranks.add(r)
            return ranks.pop() if len(ranks) == 1 else None
        finally:
            self._seen.discard(n)

    def unpacked(self, v: cst.BaseExpression, depth: int) -> Optional[int]:
        """The rank of each item of ``a, b, c = v``."""
        if isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute):
            meth = v.func.attr.value
            base = self.rank(v.func.value, depth + 1)
            if base is None or base == _SELF:
                return None
            if meth == "unbind":
                return base - 1
            if meth in _SPLITS:
                return base
        if isinstance(v, (cst.Tuple, cst.List)):
            rs = {self.rank(e.value, depth + 1) for e in v.elements}
            return rs.pop() if len(rs) == 1 else None
        return None

    def rank(self, e: cst.BaseExpression, depth: int = 0) -> Optional[int]:
        if depth > 16:
            return None
        if isinstance(e, cst.Name):
            return self.name(e.value, depth)
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.Multiply, cst.Divide)):
            if _number(e.right):
                return self.rank(e.left, depth + 1)
            if _number(e.left):
                return self.rank(e.right, depth + 1)
            return None
        if isinstance(e, cst.Subscript) and len(e.slice) == 1:
            s = e.slice[0].slice
            if isinstance(s, cst.Index) and isinstance(s.value, cst.Integer):
                r = self.rank(e.value, depth + 1)
                return r - 1 if r is not None and r != _SELF else None
            return None
        if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute):
            meth = e.func.attr.value
            if meth in _SIZED:
                return _sizes(e)
            if meth in _SAME:
                return self.rank(e.func.value, depth + 1)
        return None


@register
class SdpaNot4d(Rule):
    code = "EXL132"
    name = "sdpa-not-4d-onnx-dynamo"
    severity = Severity.ERROR
    exporters = ("onnx-dynamo",)
    summary = "scaled_dot_product_attention on a query/key/value that is not 4-d: onnx-dynamo cannot translate it."

    def check(self, ctx):
        if "scaled_dot_product_attention" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            ranks = None
            for call in fn.calls:
                if call.qualname not in _SDPA:
                    continue
                plain = [a.value for a in call.node.args if a.keyword is None and not a.star]
                if any(a.star for a in call.node.args):
                    continue
                ranks = ranks or _Ranks(fn.node)
                bad = None
                for i, kw in enumerate(("query", "key", "value")):
                    a = call.kwarg(kw)
                    e = a.value if a is not None else (plain[i] if i < len(plain) else None)
                    r = ranks.rank(e) if e is not None else None
                    if r is not None and r in _MEASURED:
                        bad = (kw, r)
                        break
                if bad is None:
                    continue
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` attends with a {bad[1]}-d {bad[0]} (the function writes its sizes): "
                    "torch.onnx.export(dynamo=True) fails in step 3/3 ('Error when translating node "
                    "%scaled_dot_product_attention': its translation takes only 4-d query, key and value); "
                    "torch.export and the legacy exporter pass. Make q, k and v 4-d (batch, heads, tokens, "
                    "head dim) before the call: fold extra dims into the batch (`q.reshape(B * T, heads, N, d)`) "
                    "and restore them after it.",
                )
        return ()
