"""EXL146: inputs given separate named Dims, tied equal by an op.

Measured with torch 2.13 (bench/labels/probes_cases15/run_probes.py, ``probes.out``; batch-15's
``pkg_cat_add_separate_dims`` from https://github.com/pytorch/pytorch/issues/155717, and batch-14's
``pkg_separate_dims_mask_add`` from https://github.com/pytorch/pytorch/issues/126127): when two
inputs' dims at positions an op must make equal (broadcasting ``x + y``, ``x * y``, the dims other
than the concatenated one of ``torch.cat``, the contracted dims of ``x @ y``) are declared with
different named ``Dim``s (``{0: Dim("bx")}``, ``{0: Dim("by")}``), strict and non-strict
torch.export fail at the op ("Constraints violated (by)! ... Suggested fixes: by = bx");
onnx-dynamo (which retries with the suggested fixes) and the legacy exporter pass. One Dim object
for both, or ``Dim.DYNAMIC`` / ``Dim.AUTO``, exports; so does ``torch.cat`` along the dims declared
separately.

The dims are followed only where their position is known: an input of the exported class's
forward (its named Dims and, for broadcasting and matmul, its rank from a literal
``example_args``), through shape-keeping methods and functions (``.float()``, ``.to()``,
``.relu()``, ``F.gelu``, arithmetic with a number), local names bound once, and the parameters of
a function of the same file that the forward calls at one site. Anything else is not known.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.model import iter_nodes, literal_value
from exportlint.semantics.nodes import assigned_names

_EXPS = ("export-strict", "export-nonstrict")

#: tensor methods whose result has the receiver's shape
_KEEP_METHODS = frozenset({
    "float", "half", "double", "bfloat16", "int", "long", "bool", "to", "type_as", "contiguous", "clone",
    "detach", "relu", "sigmoid", "tanh", "abs", "exp", "log", "neg", "sqrt", "rsqrt", "sin", "cos",
    "softmax", "log_softmax", "masked_fill", "clamp", "clamp_min", "clamp_max", "pow", "reciprocal",
})
#: torch functions whose result has their first argument's shape
_KEEP_FUNCS = frozenset({
    "torch.relu", "torch.sigmoid", "torch.tanh", "torch.exp", "torch.log", "torch.abs", "torch.neg",
    "torch.sqrt", "torch.rsqrt", "torch.sin", "torch.cos", "torch.softmax", "torch.clamp",
    "torch.nn.functional.relu", "torch.nn.functional.gelu", "torch.nn.functional.silu",
    "torch.nn.functional.sigmoid", "torch.nn.functional.tanh", "torch.nn.functional.softmax",
    "torch.nn.functional.log_softmax", "torch.nn.functional.dropout", "torch.nn.functional.leaky_relu",
    "torch.nn.functional.elu", "torch.nn.functional.mish", "torch.nn.functional.hardswish",
})
_ELEMENTWISE_FUNCS = frozenset({"torch.add", "torch.sub", "torch.mul", "torch.div", "torch.maximum",
                                "torch.minimum", "torch.subtract", "torch.multiply", "torch.divide"})
_MATMUL_FUNCS = frozenset({"torch.matmul", "torch.mm", "torch.bmm"})
_CAT_FUNCS = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})
_ARITH = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)

#: (rank or None, {dim index: Dim name})
Prov = tuple[Optional[int], dict]


def _dynamic(ctx) -> dict:
    """Class name -> parameter -> declared dims: the project's (``ctx.project_dynamic``), or, in a
    one-file run, those this file's own declarations give its classes (memoised on the context)."""
    proj = getattr(ctx, "project_dynamic", None)
    if proj is not None:
        return proj
    got = ctx.__dict__.get("_dim_ties_local")
    if got is None:
        got = {}
        if "dynamic_shapes" in ctx.text and "Dim" in ctx.text:
            from exportlint.semantics.index import index_source

            fi = index_source(ctx.text, ctx.path, "_exl_local", False)
            for ec in fi.export_calls:
                cls = ec.model_class or ec.model
                classes = ctx.model.classes
                cf = (classes.get(cls) if isinstance(classes, dict) else
                      next((c for c in classes if getattr(c, "name", None) == cls), None)) if cls else None
                if cf is None:
                    continue
                fwd = next((f for f in ctx.model.functions if f.is_forward and f.cls is cf), None)
                params = [q for q in _params(fwd)[1:]] if fwd is not None else []
                d = got.setdefault(cls, {})
                for k, dims in ec.dynamic.items():
                    if k.startswith("#") and k[1:].isdigit():
                        if int(k[1:]) < len(params):
                            d.setdefault(params[int(k[1:])], set()).update(dims)
                    elif not k.startswith("@"):
                        d.setdefault(k, set()).update(dims)
        ctx.__dict__["_dim_ties_local"] = got
    return got


def _declared(ctx, cls_name: str) -> dict[str, Prov]:
    """Forward parameter -> its declared named Dims and rank, for the class ``cls_name``."""
    out: dict[str, Prov] = {}
    proj = _dynamic(ctx)
    for p, dims in (proj.get(cls_name) or {}).items():
        names: dict = {}
        twice: set = set()
        ranks: set = set()
        for d in dims:
            if isinstance(d, str) and d.startswith("name:"):
                i, _, nm = d[5:].partition("=")
                if names.setdefault(int(i), nm) != nm:
                    twice.add(int(i))  # two export calls name the dim differently: not known
            elif isinstance(d, str) and d.startswith("rank:"):
                ranks.add(int(d[5:]))
        for i in twice:
            names.pop(i, None)
        rank = next(iter(ranks)) if len(ranks) == 1 else None
        if names:
            out[p] = (rank, names)
    return out


def _params(fn) -> list[str]:
    p = fn.node.params
    return [q.name.value for q in list(p.posonly_params) + list(p.params)]


class _Scope:
    """The provenance of expressions of one function (memoised per run through the function)."""

    def __init__(self, ctx, fn, entry: dict[str, Prov], depth: int = 0) -> None:
        self.ctx = ctx
        self.fn = fn
        self.entry = entry
        self.depth = depth
        self._assigned: Optional[dict] = None
        self._memo: dict[int, Optional[Prov]] = {}

    def binds(self) -> dict:
        """Local name -> its one simple assignment's value (names bound more than once: absent)."""
        if self._assigned is None:
            counts: dict = {}
            values: dict = {}
            for n in self.fn.nodes():
                if isinstance(n, cst.Assign):
                    for t in n.targets:
                        for x in assigned_names(t):
                            counts[x] = counts.get(x, 0) + 1
                        if isinstance(t.target, cst.Name):
                            values[t.target.value] = n.value
                elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.WithItem)):
                    for x in assigned_names(n):
                        counts[x] = counts.get(x, 0) + 2
            self._assigned = {k: v for k, v in values.items() if counts.get(k) == 1}
            self._rebound = {k for k, c in counts.items()}
        return self._assigned

    def prov(self, e: cst.BaseExpression, depth: int = 0) -> Optional[Prov]:
        if depth > 12:
            return None
        k = id(e)
        if k in self._memo:
            return self._memo[k]
        self._memo[k] = None  # cycles: not known
        got = self._prov(e, depth)
        self._memo[k] = got
        return got

    def _prov(self, e: cst.BaseExpression, depth: int) -> Optional[Prov]:
        fn = self.fn
        if isinstance(e, cst.Name):
            binds = self.binds()
            if e.value in binds:
                return self.prov(binds[e.value], depth + 1)
            if e.value in self._rebound:
                return None
            if e.value in self.entry:
                return self.entry[e.value]
            return self._from_caller(e.value)
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus):
            return self.prov(e.expression, depth + 1)
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, _ARITH):
            lnum = _number(e.left)
            rnum = _number(e.right)
            if lnum and not rnum:
                return self.prov(e.right, depth + 1)
            if rnum and not lnum:
                return self.prov(e.left, depth + 1)
            a, b = self.prov(e.left, depth + 1), self.prov(e.right, depth + 1)
            return _broadcast(a, b)
        if isinstance(e, cst.Call):
            q = _qual(fn, e)
            if (isinstance(e.func, cst.Attribute) and e.func.attr.value in _KEEP_METHODS
                    and (q is None or q == "torch.Tensor." + e.func.attr.value)):
                return self.prov(e.func.value, depth + 1)
            args = [a.value for a in e.args if a.keyword is None and not a.star]
            if q in _KEEP_FUNCS and args:
                return self.prov(args[0], depth + 1)
            if q in _CAT_FUNCS:
                seq, k = _cat_args(e)
                if seq:
                    first = self.prov(seq[0], depth + 1)
                    if first is not None and isinstance(k, int):
                        rank, names = first
                        if k < 0 and rank is not None:
                            k += rank
                        return (rank, {i: n for i, n in names.items() if i != k}) if k >= 0 else None
        return None

    def _from_caller(self, name: str) -> Optional[Prov]:
        """A parameter of a function of this file the caller calls at one site: the argument's."""
        fn = self.fn
        caller = getattr(fn, "caller", None)
        if caller is None or self.depth >= 3 or fn.why != "called" or fn.cls is not None:
            return None
        params = _params(fn)
        if name not in params:
            return None
        sites = [c for d, c in getattr(caller, "callee_sites", ()) if d is fn.node]
        if len(sites) != 1:
            return None
        call = sites[0]
        arg = None
        for a in call.args:
            if a.star:
                return None
            if a.keyword is not None and a.keyword.value == name:
                arg = a.value
        if arg is None:
            pos = [a.value for a in call.args if a.keyword is None]
            i = params.index(name)
            arg = pos[i] if i < len(pos) else None
        if arg is None:
            return None
        return _scope_of(self.ctx, caller, self.entry_of(caller), self.depth + 1).prov(arg)

    def entry_of(self, caller) -> dict:
        return _entry(self.ctx, caller)


def _entry(ctx, fn) -> dict:
    if fn.is_forward and fn.cls is not None:
        return _declared(ctx, fn.cls.name)
    return {}


def _scope_of(ctx, fn, entry, depth) -> _Scope:
    memo = fn.__dict__.setdefault("_dim_ties_scope", {})
    s = memo.get(depth)
    if s is None:
        s = memo[depth] = _Scope(ctx, fn, entry, depth)
    return s


def _number(e) -> bool:
    v = literal_value(e)
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _qual(fn, call: cst.Call) -> Optional[str]:
    quals = fn.__dict__.get("_dim_ties_quals")
    if quals is None:
        quals = fn.__dict__["_dim_ties_quals"] = {id(c.node): c.qualname for c in fn.calls}
    return quals.get(id(call))


def _cat_args(call: cst.Call) -> tuple[list, object]:
    pos = [a for a in call.args if a.keyword is None]
    seq = pos[0].value if pos else None
    dim = None
    for a in call.args:
        if a.keyword is not None and a.keyword.value in ("dim", "axis"):
            dim = literal_value(a.value)
    if dim is None:
        dim = literal_value(pos[1].value) if len(pos) > 1 else 0
    if not isinstance(seq, (cst.List, cst.Tuple)) or any(isinstance(el, cst.StarredElement) for el in seq.elements):
        return [], None
    return [el.value for el in seq.elements], dim


def _broadcast(a: Optional[Prov], b: Optional[Prov]) -> Optional[Prov]:
    if a is None or b is None:
        return None
    ra, na = a
    rb, nb = b
    if ra is None or rb is None:
        return None
    r = max(ra, rb)
    out = {}
    for j in range(r):
        ia, ib = ra - 1 - j, rb - 1 - j
        nm = na.get(ia) if ia >= 0 else None
        if nm is None and ib >= 0:
            nm = nb.get(ib)
        if nm is not None:
            out[r - 1 - j] = nm
    return (r, out)


def _ties_broadcast(a: Optional[Prov], b: Optional[Prov]) -> Optional[tuple]:
    """(index in a, Dim of a, index in b, Dim of b) of the first aligned pair of different Dims."""
    if a is None or b is None or a[0] is None or b[0] is None:
        return None
    (ra, na), (rb, nb) = a, b
    for j in range(min(ra, rb)):
        x, y = na.get(ra - 1 - j), nb.get(rb - 1 - j)
        if x is not None and y is not None and x != y:
            return (ra - 1 - j, x, rb - 1 - j, y)
    return None


def _ties_matmul(a: Optional[Prov], b: Optional[Prov]) -> Optional[tuple]:
    if a is None or b is None or a[0] is None or b[0] is None:
        return None
    (ra, na), (rb, nb) = a, b
    ka, kb = ra - 1, (rb - 2 if rb >= 2 else 0)
    x, y = na.get(ka), nb.get(kb)
    if x is not None and y is not None and x != y:
        return (ka, x, kb, y)
    return None


def _ties_cat(provs: list, k) -> Optional[tuple]:
    rank = next((p[0] for p in provs if p is not None and p[0] is not None), None)
    if not isinstance(k, int):
        return None
    if k < 0:
        if rank is None:
            return None
        k += rank
    for i, a in enumerate(provs):
        for b in provs[i + 1:]:
            if a is None or b is None:
                continue
            for d, x in a[1].items():
                y = b[1].get(d)
                if d != k and y is not None and x != y:
                    return (d, x, d, y)
    return None


def _tie(fn, scope: "_Scope", n: cst.CSTNode) -> Optional[tuple]:
    if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, _ARITH):
        if _number(n.left) or _number(n.right):
            return None
        return _ties_broadcast(scope.prov(n.left), scope.prov(n.right))
    if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.MatrixMultiply):
        return _ties_matmul(scope.prov(n.left), scope.prov(n.right))
    if isinstance(n, cst.Call):
        q = _qual(fn, n)
        if q is None:
            return None
        args = [a.value for a in n.args if a.keyword is None and not a.star]
        if q in _ELEMENTWISE_FUNCS and len(args) >= 2:
            return _ties_broadcast(scope.prov(args[0]), scope.prov(args[1]))
        if q in _MATMUL_FUNCS and len(args) >= 2:
            return _ties_matmul(scope.prov(args[0]), scope.prov(args[1]))
        if q in _CAT_FUNCS:
            seq, k = _cat_args(n)
            if len(seq) >= 2:
                return _ties_cat([scope.prov(x) for x in seq], k)
    return None


@register
class SeparateDimsTied(Rule):
    code = "EXL146"
    name = "separate-dims-tied"
    severity = Severity.ERROR
    exporters = _EXPS
    summary = "Inputs given separate named Dims whose dims an op forces equal: torch.export fails."

    def check(self, ctx):
        if "Dim" not in ctx.text and not getattr(ctx, "project_dynamic", None):
            return ()
        proj = _dynamic(ctx)
        if not proj or not any(isinstance(d, str) and d.startswith("name:")
                               for dims in proj.values() for ds in dims.values() for d in ds):
            return ()
        for fn in ctx.model.functions:
            entry = _entry(ctx, fn)
            if not entry and not (fn.why == "called" and fn.cls is None and getattr(fn, "caller", None) is not None):
                continue
            scope = _scope_of(ctx, fn, entry, 0)
            for st in fn.statements():
                if type(st) is not cst.SimpleStatementLine:
                    continue
                for n in iter_nodes(st):  # one finding per statement: its first tie
                    tie = _tie(fn, scope, n)
                    if tie is None:
                        continue
                    ia, x, ib, y = tie
                    ctx.report(
                        n,
                        f"`{snippet(ctx, n)}` makes dim {ia} of one input (Dim '{x}') equal to dim {ib} of "
                        f"another (Dim '{y}'): the inputs were given separate Dims, so strict and non-strict "
                        f"torch.export fail here ('Constraints violated ({y})! ... Suggested fixes: {y} = {x}'; "
                        "measured, torch 2.13). onnx-dynamo retries with that fix and the legacy exporter has no "
                        f"Dims: both pass. Give both inputs one Dim object for that dimension (`{x}`), or "
                        "`Dim.DYNAMIC`.",
                    )
                    break
        return ()
