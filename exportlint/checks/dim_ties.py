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
``.relu()``, ``F.gelu``, arithmetic with a number or ``torch.finfo(...).min``), local names bound
once (or rebound by plain top-level assignments only), the parameters of a function of the same
file that the forward calls at one site, ``nn.Embedding`` / ``nn.Linear`` / shape-keeping
submodules, full-slice and ``None`` indexing, and the return of a plain function of another file
(stdlib ``ast``, read once per run, only when a known input flows into it; measured: cases16's
``dims_embed_mask_add``, batch 14's ``pkg_separate_dims_mask_add``). Anything else is not known.
"""

from __future__ import annotations

import os
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
        self._straight: Optional[tuple] = None
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

    def _reaching(self, e: cst.Name, depth: int) -> Optional[Prov]:
        """A name bound more than once, only by plain assignments among the function's top-level
        statements (``h = self.embed(ids)`` ... ``h = self.ffn(h) + bias``): the value of the last
        one before the statement that reads it; else not known."""
        if self._straight is None:
            body = self.fn.node.body.body if isinstance(self.fn.node.body, cst.IndentedBlock) else ()
            top: dict = {}
            where: dict = {}
            plain: dict = {}
            for i, st in enumerate(body):
                for n in iter_nodes(st):
                    where[id(n)] = i
                if type(st) is cst.SimpleStatementLine and len(st.body) == 1 and type(st.body[0]) is cst.Assign:
                    a = st.body[0]
                    if len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name):
                        nm = a.targets[0].target.value
                        top.setdefault(nm, []).append((i, a.value))
            for n in self.fn.nodes():
                if isinstance(n, cst.Assign):
                    for t in n.targets:
                        for x in assigned_names(t):
                            plain[x] = plain.get(x, 0) + 1
                elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr,
                                    cst.WithItem)):
                    for x in assigned_names(n):
                        plain[x] = plain.get(x, 0) + 1000
            self._straight = ({k: v for k, v in top.items() if plain.get(k) == len(v)}, where)
        top, where = self._straight
        at = where.get(id(e))
        if at is None or e.value not in top:
            return None
        before = [v for i, v in top[e.value] if i < at]
        return self.prov(before[-1], depth + 1) if before else None

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
                return self._reaching(e, depth)
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
        if isinstance(e, cst.Subscript):
            items = _cst_index_items(e)
            if any(k is None for k in items):
                return None
            return _index(self.prov(e.value, depth + 1), items)
        if isinstance(e, cst.Call):
            q = _qual(fn, e)
            f = e.func
            if (isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and fn.cls is not None
                    and getattr(fn, "self_name", None) == f.value.value):
                args = [a.value for a in e.args if a.keyword is None and not a.star]
                if len(args) == 1 and len(e.args) == 1:
                    mq = _submodule_class(self.ctx, fn, f.attr.value)
                    if mq is not None:
                        return _layer(self.prov(args[0], depth + 1), mq)
                return None
            if q and not q.startswith("torch.") and getattr(self.ctx, "project", None) is not None:
                return self._helper_return(q, e, depth)
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

    def _helper_return(self, q: str, call: cst.Call, depth: int) -> Optional[Prov]:
        """The provenance of what a function of another file returns, from its arguments'."""
        if any(a.star for a in call.args):
            return None
        pos = [self.prov(a.value, depth + 1) for a in call.args if a.keyword is None]
        kw = {a.keyword.value: self.prov(a.value, depth + 1) for a in call.args if a.keyword is not None}
        if all(p is None for p in pos) and all(p is None for p in kw.values()):
            return None  # nothing known goes in: the callee is not read
        helper = _helper_def(self.ctx, q)
        if helper is None:
            return None
        fdef, imports = helper
        params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
        env = {}
        for i, p in enumerate(pos):
            if i < len(params) and p is not None:
                env[params[i]] = p
        for k, p in kw.items():
            if p is not None:
                env[k] = p
        return _AstReturn(fdef, imports, env).result()

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


def _submodule_class(ctx, fn, attr: str) -> Optional[str]:
    """``torch.nn.X`` when ``self.<attr>`` was built as ``nn.X(...)`` in ``__init__``."""
    fact = fn.cls.find_attr(attr)
    if fact is None or fact.what != "submodule" or not isinstance(fact.value, cst.Call):
        return None
    q = ctx.model.imports.resolve(fact.value.func) or ""
    return q if q.startswith("torch.nn.") else None


def _helper_def(ctx, q: str):
    """(stdlib ``ast`` def, its file's imports) of the plain function ``q`` of another project
    file whose body is single assignments and one final ``return``; memoised per run."""
    import ast

    from exportlint.semantics.project import run_memo, top_level_ast

    proj = ctx.project
    fi = proj.index_path(ctx.path)
    if fi is None:
        return None
    absolute = proj.absolute(fi, q)
    memo = run_memo(proj, "dim_ties.helpers")
    if absolute not in memo:
        read: set = set()
        got = None
        t = proj.resolve_function(absolute, read)
        if t is not None and not t.is_method and os.path.abspath(t.path) != os.path.abspath(ctx.path):
            d = top_level_ast(proj, t.path, t.qual)
            hfi = proj.index_path(t.path)
            if (isinstance(d, ast.FunctionDef) and hfi is not None and d.body
                    and isinstance(d.body[-1], ast.Return) and d.body[-1].value is not None
                    and all(isinstance(st, (ast.Assign, ast.Expr)) for st in d.body[:-1])):
                got = (d, dict(hfi.imports))
        memo[absolute] = (got, read)
    got, read = memo[absolute]
    ctx.project_calls()["deps"].update(read)
    return got


class _AstReturn:
    """The provenance of a helper's return value (stdlib ast), its parameters bound to the
    caller's arguments' provenance; what is not followed is not known."""

    def __init__(self, fdef, imports: dict, env: dict) -> None:
        import ast

        self.ast = ast
        self.imports = imports
        self.env = dict(env)
        counts: dict = {}
        self.binds: dict = {}
        for st in fdef.body[:-1]:
            if isinstance(st, ast.Assign):
                for t in st.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            counts[n.id] = counts.get(n.id, 0) + 1
                    if isinstance(t, ast.Name):
                        self.binds[t.id] = st.value
        self.binds = {k: v for k, v in self.binds.items() if counts.get(k) == 1}
        for k, c in counts.items():
            if c != 1 or k not in self.binds:
                self.env.pop(k, None)
        self.ret = fdef.body[-1].value

    def result(self) -> Optional[Prov]:
        return self.prov(self.ret, 0)

    def qual(self, e) -> Optional[str]:
        from exportlint.semantics.index import ast_dotted

        d = ast_dotted(e)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        base = self.imports.get(head)
        if base is None:
            return None
        return base + ("." + rest if rest else "")

    def number(self, e) -> bool:
        ast = self.ast
        if isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
            return True
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return self.number(e.operand)
        return (isinstance(e, ast.Attribute) and isinstance(e.value, ast.Call)
                and self.qual(e.value.func) in ("torch.finfo", "torch.iinfo"))

    def prov(self, e, depth: int) -> Optional[Prov]:
        ast = self.ast
        if depth > 12:
            return None
        if isinstance(e, ast.Name):
            if e.id in self.binds:
                return self.prov(self.binds[e.id], depth + 1)
            return self.env.get(e.id)
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return self.prov(e.operand, depth + 1)
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv,
                                                           ast.Mod, ast.Pow)):
            ln, rn = self.number(e.left), self.number(e.right)
            if ln and not rn:
                return self.prov(e.right, depth + 1)
            if rn and not ln:
                return self.prov(e.left, depth + 1)
            return _broadcast(self.prov(e.left, depth + 1), self.prov(e.right, depth + 1))
        if isinstance(e, ast.Subscript):
            sl = e.slice
            els = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            items = []
            for el in els:
                if isinstance(el, ast.Slice) and el.lower is None and el.upper is None and el.step is None:
                    items.append("keep")
                elif isinstance(el, ast.Constant) and el.value is None:
                    items.append("new")
                else:
                    return None
            return _index(self.prov(e.value, depth + 1), items)
        if isinstance(e, ast.Call):
            args = [a for a in e.args if not isinstance(a, ast.Starred)]
            if isinstance(e.func, ast.Attribute) and e.func.attr in _KEEP_METHODS and self.qual(e.func) is None:
                return self.prov(e.func.value, depth + 1)
            q = self.qual(e.func)
            if q in _KEEP_FUNCS and args and len(args) == len(e.args):
                return self.prov(args[0], depth + 1)
        return None


def _scope_of(ctx, fn, entry, depth) -> _Scope:
    memo = fn.__dict__.setdefault("_dim_ties_scope", {})
    s = memo.get(depth)
    if s is None:
        s = memo[depth] = _Scope(ctx, fn, entry, depth)
    return s


def _number(e) -> bool:
    v = literal_value(e)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return True
    # `torch.finfo(dtype).min` / `torch.iinfo(...).max`: a Python number
    return (isinstance(e, cst.Attribute) and isinstance(e.value, cst.Call)
            and isinstance(e.value.func, cst.Attribute) and e.value.func.attr.value in ("finfo", "iinfo")
            and isinstance(e.value.func.value, cst.Name) and e.value.func.value.value == "torch")


#: nn layers whose output keeps the input's shape
_KEEP_LAYERS = frozenset({
    "torch.nn.ReLU", "torch.nn.GELU", "torch.nn.SiLU", "torch.nn.Sigmoid", "torch.nn.Tanh", "torch.nn.Dropout",
    "torch.nn.LayerNorm", "torch.nn.Identity", "torch.nn.LeakyReLU", "torch.nn.ELU", "torch.nn.Mish",
    "torch.nn.Hardswish", "torch.nn.Softmax", "torch.nn.RMSNorm",
})
#: nn layers that change only the last dim (its size; the other dims are the input's)
_LAST_DIM_LAYERS = frozenset({"torch.nn.Linear", "torch.nn.LazyLinear", "torch.nn.Bilinear"})
#: nn layers that append a dim (the input's dims kept)
_APPEND_DIM_LAYERS = frozenset({"torch.nn.Embedding"})


def _layer(rank_names: Optional[Prov], mq: str) -> Optional[Prov]:
    """The provenance of a layer's output from its input's."""
    if rank_names is None:
        return None
    rank, names = rank_names
    if mq in _KEEP_LAYERS:
        return rank_names
    if rank is None:
        return None
    if mq in _LAST_DIM_LAYERS:
        return (rank, {i: n for i, n in names.items() if i != rank - 1})
    if mq in _APPEND_DIM_LAYERS:
        return (rank + 1, dict(names))
    return None


def _index(p: Optional[Prov], items: list) -> Optional[Prov]:
    """``t[:, :, None]``: full slices keep a dim, None inserts one; anything else (an integer,
    a partial slice, an ellipsis, a tensor index) is not followed. ``items``: "keep" / "new" /
    None (not followed)."""
    if p is None or p[0] is None or any(k is None for k in items):
        return None
    rank, names = p
    if sum(1 for k in items if k == "keep") > rank:
        return None
    out: dict = {}
    i = j = 0
    for k in items:
        if k == "keep":
            if i in names:
                out[j] = names[i]
            i += 1
        j += 1
    for rest in range(i, rank):
        if rest in names:
            out[j] = names[rest]
        j += 1
    return (j, out)


def _cst_index_items(sub: cst.Subscript) -> list:
    items = []
    for el in sub.slice:
        s = el.slice
        if isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None:
            items.append("keep")
        elif isinstance(s, cst.Index) and isinstance(s.value, cst.Name) and s.value.value == "None":
            items.append("new")
        else:
            items.append(None)
    return items


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
