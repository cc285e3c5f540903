"""EXL127: ``F.scaled_dot_product_attention`` with a mask computed from parameters, its output
transposed and reshaped: onnx-dynamo fails ("Cannot view a tensor with shape ... and strides ...").

Measured with torch 2.13.0 (``bench/labels/probes_zoo10/probe_sdpa_view.py``,
``bench/labels/probes_zoo11/probe_sdpa_view2.py``; rules/EXL127.md): one attention layer, two
heads, ``o = sdpa(q, k, v, attn_mask=M)`` then ``o.transpose(1, 2).reshape(B, N, C)``. onnx-dynamo
fails in its step 2 (the decomposition re-traces SDPA into another output layout; the ``view``
recorded in step 1 for the first layout fails) exactly when ``M`` is a float tensor that requires
grad and is not a leaf (an op on a parameter: ``bias.unsqueeze(0)``, ``bias * 2``, an
``nn.Embedding`` lookup permuted, a Linear of the input) **and** ``M`` has 2 or 4 dims. It passes
with the parameter itself (a leaf, any rank), a 3-D non-leaf mask, a detached mask, a buffer, a
bool mask, zeros built in forward, with one head, with frozen parameters (``requires_grad_(False)``)
and without the transpose. ``.contiguous()`` before the reshape does not help. torch.export
(strict, non-strict) and the legacy exporter pass.

Found only as far as the file shows it: the mask's value is followed through local assignments,
``self.<method>()`` returns of the class, ``self.<param>`` attributes set to ``nn.Parameter`` in
``__init__`` and calls of torch submodules holding parameters; its rank through the ops that fix
it (``view``/``reshape``/``permute``/``expand`` with written sizes, ``unsqueeze``, ``[None]``,
``nn.Parameter(torch.zeros(a, b))``); a parameter of a module's ``forward`` through the values
the file's other module classes pass for it where they call a submodule built from that class (zoo19:
hf BEiT's layer hands its relative-position bias to its attention; ``torch.cat`` of pieces computed
from parameters and ``a if c else b`` are followed). Reported at the reshape of the transposed output in the
same function. A warning: the head count is a config value the linter does not know (one head
exports), and the mask's other definitions (a flag choosing another path) may be what runs.
"""

from __future__ import annotations

import ast
import os
from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.index import ast_qualname
from exportlint.semantics.model import literal_value
from exportlint.semantics.nodes import child_nodes, iter_nodes

_SDPA = ("torch.nn.functional.scaled_dot_product_attention", "torch._C._nn.scaled_dot_product_attention")
#: torch submodules whose call output requires grad (they hold parameters)
_PARAM_MODULES = ("Embedding", "Linear", "Conv1d", "Conv2d", "LayerNorm", "Sequential", "Bilinear")
_FACTORIES = ("torch.zeros", "torch.ones", "torch.randn", "torch.rand", "torch.empty", "torch.full", "torch.Tensor",
              "torch.FloatTensor")
_SAME_RANK = ("contiguous", "float", "half", "to", "type_as", "clone", "transpose", "masked_fill", "softmax",
              "__neg__", "mul", "add", "sigmoid", "tanh", "exp", "abs")
_SIZED = ("view", "reshape", "permute", "expand", "repeat")
_CAT = ("torch.cat", "torch.concat", "torch.concatenate")

#: a value: (requires_grad, leaf, rank); None for what the file does not show
Val = tuple[Optional[bool], Optional[bool], Optional[int]]
UNKNOWN: Val = (None, None, None)


def _sized_rank(args: list[cst.Arg]) -> Optional[int]:
    """Dims of view/reshape/permute/expand from the written sizes (a tuple/list or separate args)."""
    if not args or any(a.star for a in args) or any(a.keyword is not None for a in args):
        return None
    if len(args) == 1:
        v = args[0].value
        if isinstance(v, (cst.Tuple, cst.List)):
            if any(isinstance(e, cst.StarredElement) for e in v.elements):
                return None
            return len(v.elements)
        # one written int (`view(-1)`); a name or an expression may be a size tuple (`shape + (-1,)`)
        return 1 if isinstance(literal_value(v), int) and not isinstance(literal_value(v), bool) else None
    return len(args)


class _Eval:
    """May-values of a mask expression inside one class."""

    def __init__(self, ctx, cls) -> None:
        self.ctx, self.cls = ctx, cls
        self.m = ctx.model
        #: methods of classes handed to the constructor whose returned mask is a hazard
        self.notes: list[str] = []

    def param_rank(self, attr: str) -> Optional[Val]:
        """self.<attr> set to nn.Parameter in __init__: (True, True, rank) ; a buffer: (False, True, rank)."""
        if self.cls is None:
            return None
        f = self.cls.find_attr(attr)
        if f is None or f.what not in ("parameter", "buffer", "submodule"):
            return None
        if f.what == "submodule":
            return None
        return (f.what == "parameter", True, self.init_rank(attr))

    def init_rank(self, attr: str) -> Optional[int]:
        """Dims of `self.<attr> = nn.Parameter(torch.zeros(a, b, c))` in the __init__ of the class or
        a base of the file, read from the file's text (the reduced parse keeps no arguments there)."""
        ranks = _init_ranks(self.ctx)
        seen, todo = set(), [self.cls]
        while todo:
            c = todo.pop()
            if c is None or c.name in seen:
                continue
            seen.add(c.name)
            if (c.name, attr) in ranks:
                return ranks[(c.name, attr)]
            todo += c.local_bases
        return None

    def submodule_with_params(self, attr: str) -> bool:
        if self.cls is None:
            return False
        f = self.cls.find_attr(attr)
        if f is None or f.what != "submodule" or not isinstance(f.value, cst.Call):
            return False
        q = self.m.imports.resolve(f.value.func) or ""
        return q.startswith("torch.nn.") and q.rsplit(".", 1)[-1] in _PARAM_MODULES

    def local_submodules(self, attr: str) -> list:
        """The classes of this file a submodule attribute may be built from (`self.x = Bias(...)`,
        `Bias(...) if cond else None`: ``SemanticModel.submodule_classes``)."""
        if self.cls is None:
            return []
        f = self.cls.find_attr(attr)
        if f is None or f.what in ("parameter", "buffer", "tensor"):
            return []
        out = list(self.m.submodule_classes(f))
        if out or f.what != "config":
            return out
        # `self.x = Cls(...) if cond else None`: the reduced parse folds it into a config mark
        built = _init_built(self.ctx)
        seen, todo = set(), [self.cls]
        while todo:  # the class or a base of the file that sets it
            c = todo.pop()
            if c is None or c.name in seen:
                continue
            seen.add(c.name)
            if (c.name, attr) in built:
                for n in sorted(built[(c.name, attr)]):
                    k = self.m.classes.get(n)
                    if k is not None and k.is_module and k not in out:
                        out.append(k)
                break
            todo += c.local_bases
        return out

    def handed_returns(self, attr: str, meth: str, depth: int) -> Optional[list[Val]]:
        """``self.<attr>.<meth>()`` where ``__init__`` builds ``self.<attr>`` from a class its
        constructor is handed (``self.x = cls_param(...)``, index record "@Class.param"): the
        values ``meth`` returns in each class the project's constructions pass
        (``semantics/ctor_classes``), read with the stdlib ``ast``; None when the attribute is not
        such a submodule or the classes are unknown. The classes whose value is a hazard are
        noted (``self.notes``) for the message."""
        proj = self.ctx.project
        if proj is None or depth > 8:
            return None
        fi = proj.index_path(self.ctx.path)
        ci = fi.classes.get(self.cls.name) if fi is not None else None
        ctors = ci.attrs.get(attr) if ci is not None else None
        if not ctors or len(ctors) != 1 or not ctors[0].startswith("@"):
            return None
        from exportlint.semantics.ctor_classes import param_classes

        deps: set = set()
        cname, _, param = ctors[0][1:].partition(".")
        classes = param_classes(proj, fi, cname, param, deps)
        self.ctx.project_calls()["deps"].update(deps)
        if not classes:
            return None
        out: list[Val] = []
        for cfi, c in classes:
            vals = _AstEval(proj, deps).method_returns(cfi, c, meth, 0)
            self.ctx.project_calls()["deps"].update(deps)
            if any(_hazard(v) for v in vals):
                self.notes.append(f"{c}.{meth}()")
            out += vals
        return out

    def ev(self, e: cst.BaseExpression, fn: cst.FunctionDef, before: int, depth: int = 0) -> list[Val]:
        if depth > 16:
            return [UNKNOWN]
        if isinstance(e, cst.Name):
            return self.name_vals(e.value, fn, before, depth)
        if isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name) and e.value.value == "self":
            v = self.param_rank(e.attr.value)
            return [v] if v else [UNKNOWN]
        if isinstance(e, (cst.Integer, cst.Float)):
            return [(False, False, 0)]
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.Add, cst.Subtract, cst.Multiply,
                                                                           cst.Divide)):
            out = []
            for a in self.ev(e.left, fn, before, depth + 1):
                for b in self.ev(e.right, fn, before, depth + 1):
                    out.append(_binop(a, b))
            return out[:16]
        if isinstance(e, cst.Subscript):
            base = self.ev(e.value, fn, before, depth + 1)
            nones: Optional[int] = 0
            for el in e.slice:
                s = el.slice
                if isinstance(s, cst.Index) and isinstance(s.value, cst.Name) and s.value.value == "None":
                    nones += 1
                elif isinstance(s, cst.Slice) or (isinstance(s, cst.Index) and isinstance(s.value, cst.Ellipsis)):
                    continue
                else:
                    nones = None
                    break
            return _indexed(base, nones)
        if isinstance(e, cst.Call):
            return self.call_vals(e, fn, before, depth)
        if isinstance(e, cst.IfExp):  # either side may be the value
            return (self.ev(e.body, fn, before, depth + 1) + self.ev(e.orelse, fn, before, depth + 1))[:16]
        return [UNKNOWN]

    def call_vals(self, e: cst.Call, fn, before, depth) -> list[Val]:
        func = e.func
        if isinstance(func, cst.Attribute):
            meth = func.attr.value
            recv = func.value
            # self.<method>(...): its returns; self.<submodule>(...): requires grad when it holds parameters
            if isinstance(recv, cst.Name) and recv.value == "self" and self.cls is not None:
                found = self.cls.find_method(meth)
                if found is not None:
                    return self.returns(found[1], depth + 1)
                if self.submodule_with_params(meth):
                    return [(True, False, None)]
                handed = self.handed_returns(meth, "forward", depth)
                if handed is not None:
                    return handed
                subs = self.local_submodules(meth)
                if subs and not any(a.star for a in e.args):
                    # self.<submodule>() of a class of this file: what its forward returns, read in
                    # that class (a relative-position bias module returning its table's gather)
                    out: list[Val] = []
                    for sub in subs:
                        found = sub.find_method("forward")
                        out += _Eval(self.ctx, found[0]).returns(found[1], depth + 1) if found else [UNKNOWN]
                    return out[:16]
                return [UNKNOWN]
            if (isinstance(recv, cst.Attribute) and isinstance(recv.value, cst.Name) and recv.value.value == "self"
                    and self.cls is not None and not any(a.star for a in e.args)):
                # self.<submodule>.<method>(): what the method returns in the class(es) the
                # constructor is handed for the submodule (``self.rel_pos = rel_pos_cls(...)``)
                handed = self.handed_returns(recv.attr.value, meth, depth)
                if handed is not None:
                    return handed
            if isinstance(recv, cst.Name) and self.m.imports.resolve(func) is not None \
                    and (self.m.imports.resolve(func) or "").startswith("torch."):
                if self.m.imports.resolve(func) in _CAT:
                    return self.cat_vals(e, fn, before, depth)
                return [UNKNOWN]  # torch.<fn>(...)
            base = self.ev(recv, fn, before, depth + 1)
            args = list(e.args)
            if meth == "squeeze":
                dims = [a for a in args if a.keyword is None]
                one = len(dims) == 1 and isinstance(dims[0].value, (cst.Integer, cst.UnaryOperation))
                return [(g, False if g is not None else None, r - 1 if (r is not None and one) else None)
                        for g, _l, r in base]
            return _through(meth, base, _sized_rank(args) if meth in _SIZED else None)
        return [UNKNOWN]

    def cat_vals(self, e: cst.Call, fn, before, depth) -> list[Val]:
        """``torch.cat([a, b, ...])``: requires grad (not a leaf) when an item may, each item's rank."""
        pos = [a for a in e.args if a.keyword is None and not a.star]
        if not pos or not isinstance(pos[0].value, (cst.List, cst.Tuple)):
            return [UNKNOWN]
        items: list[Val] = []
        for el in pos[0].value.elements:
            if isinstance(el, cst.StarredElement):
                return [UNKNOWN]
            items += self.ev(el.value, fn, before, depth + 1)
        if not any(g is True for g, _l, _r in items):
            return [UNKNOWN]
        ranks = {r for _g, _l, r in items if r is not None}
        return [(True, False, ranks.pop() if len(ranks) == 1 else None)]

    def caller_args(self, fn: cst.FunctionDef, name: str, depth: int) -> list[Val]:
        """A parameter of ``forward`` of a module class of this file: the values the file's other
        module classes pass for it where they call a submodule built from that class
        (``self.attention = Attention(config)`` in ``__init__``, ``self.attention(x, attention_mask=m)``
        in a method), each evaluated in the caller (hf BEiT: the layer builds the relative-position
        bias and hands it to its attention). [] when the file shows no such call."""
        cls = self.cls
        if cls is None or not cls.is_module or fn.name.value != "forward" or depth > 8:
            return []
        params = [p.name.value for p in fn.params.posonly_params + fn.params.params][1:]
        kwonly = {p.name.value for p in fn.params.kwonly_params}
        if name not in params and name not in kwonly:
            return []
        idx = params.index(name) if name in params else None
        memo = _state(self.ctx).setdefault("callers", {})
        key = (id(fn), name)
        if key in memo:
            return memo[key]
        memo[key] = []  # (a cycle through the callers adds nothing)
        out: list[Val] = []
        for c in self.m.classes.values():
            if not c.is_module:
                continue
            attrs = {a for a, f in c.attrs.items() if f.what == "submodule" and cls in self.m.submodule_classes(f)}
            if not attrs:
                continue
            for meth in c.methods.values():
                for n in iter_nodes(meth.body):
                    if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
                            and isinstance(n.func.value, cst.Name) and n.func.value.value == "self"
                            and n.func.attr.value in attrs):
                        continue
                    arg = next((a for a in n.args if a.keyword is not None and a.keyword.value == name), None)
                    pos = [a for a in n.args if a.keyword is None and a.star != "**"]
                    if arg is None and any(a.star for a in pos):
                        out.append(UNKNOWN)  # positions not known
                        continue
                    if arg is None and idx is not None and idx < len(pos):
                        arg = pos[idx]
                    if arg is not None:
                        out += _Eval(self.ctx, c).ev(arg.value, meth, _pos(self.ctx, meth, n), depth)
        memo[key] = out[:16]
        return memo[key]

    def returns(self, fn: cst.FunctionDef, depth: int) -> list[Val]:
        out: list[Val] = []
        for n in _binding_nodes(self.ctx, fn)[1]:
            out += self.ev(n.value, fn, _pos(self.ctx, fn, n) + 1, depth + 1)
        return out or [UNKNOWN]

    def name_vals(self, name: str, fn: cst.FunctionDef, before: int, depth: int) -> list[Val]:
        """The values of the assignments to name in fn above line `before` (every one: may)."""
        out: list[Val] = []
        for n in _binding_nodes(self.ctx, fn)[0]:
            if isinstance(n, cst.Assign) and _pos(self.ctx, fn, n) < before:
                if any(isinstance(t.target, cst.Name) and t.target.value == name for t in n.targets):
                    if isinstance(n.value, cst.Name) and n.value.value == "None":
                        continue
                    out += self.ev(n.value, fn, _pos(self.ctx, fn, n), depth + 1)
            elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.With)) and _binds(n, name) \
                    and _pos(self.ctx, fn, n) < before:
                out.append(UNKNOWN)
        for p in fn.params.params + fn.params.kwonly_params + fn.params.posonly_params:
            if p.name.value == name:
                out.append(UNKNOWN)
                out += self.caller_args(fn, name, depth)
        return out or [UNKNOWN]


class _AstEval:
    """``_Eval`` for a method of a project class in any file, read with the stdlib ``ast``
    (``_Eval.handed_returns``): the values (requires grad, leaf, rank) it may return, by the same
    steps: local assignments above the use, ``self.<attr>`` set to ``nn.Parameter`` (its rank
    from the written factory sizes) or registered as a buffer in the class's ``__init__``, torch
    submodules holding parameters, ``self.<method>()`` returns, ``[None]`` / indexing, and the
    methods that fix or keep the rank. Anything else is unknown."""

    def __init__(self, proj, deps: set) -> None:
        self.proj, self.deps = proj, deps

    def method_returns(self, fi, cls: str, meth: str, depth: int) -> list[Val]:
        from exportlint.semantics.project import top_level_ast

        if depth > 4:
            return [UNKNOWN]
        t = self.proj.find_method(fi, cls, meth, self.deps)
        if t is None:
            return [UNKNOWN]
        cname, _, mname = t.qual.partition(".")
        self.deps.add(os.path.abspath(t.path))
        cnode = top_level_ast(self.proj, t.path, cname)
        if not isinstance(cnode, ast.ClassDef):
            return [UNKNOWN]
        fn = next((m for m in reversed(cnode.body) if isinstance(m, ast.FunctionDef) and m.name == mname), None)
        if fn is None:
            return [UNKNOWN]
        tfi = self.proj.index_path(t.path)
        return _AstMethod(self, tfi, cnode, fn, depth).returns()


class _AstMethod:
    def __init__(self, ev: _AstEval, fi, cnode: ast.ClassDef, fn: ast.FunctionDef, depth: int) -> None:
        self.ev, self.fi, self.cnode, self.fn, self.depth = ev, fi, cnode, fn, depth
        self.attrs = _ast_attrs(cnode)

    def returns(self) -> list[Val]:
        out: list[Val] = []
        for n in ast.walk(self.fn):
            if isinstance(n, ast.Return) and n.value is not None:
                out += self.val(n.value, (n.lineno, n.col_offset), 0)
        return out or [UNKNOWN]

    def val(self, e: ast.AST, before: tuple, depth: int) -> list[Val]:
        if depth > 12:
            return [UNKNOWN]
        if isinstance(e, ast.Name):
            out: list[Val] = []
            for n in ast.walk(self.fn):
                if (n.lineno, n.col_offset) >= before if hasattr(n, "lineno") else True:
                    continue
                if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == e.id for t in n.targets):
                    if isinstance(n.value, ast.Constant) and n.value.value is None:
                        continue
                    out += self.val(n.value, (n.lineno, n.col_offset), depth + 1)
                elif isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With)) and any(
                        isinstance(x, ast.Name) and x.id == e.id and isinstance(x.ctx, ast.Store) for x in ast.walk(n)):
                    out.append(UNKNOWN)
            return out or [UNKNOWN]
        if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self":
            kind = self.attrs.get(e.attr)
            if kind is None or kind[0] not in ("parameter", "buffer"):
                return [UNKNOWN]
            return [(kind[0] == "parameter", True, kind[1])]
        if isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
            return [(False, False, 0)]
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return [_binop(a, b) for a in self.val(e.left, before, depth + 1)
                    for b in self.val(e.right, before, depth + 1)][:16]
        if isinstance(e, ast.Subscript):
            base = self.val(e.value, before, depth + 1)
            idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
            nones: Optional[int] = 0
            for s in idx:
                if isinstance(s, ast.Constant) and s.value is None:
                    nones += 1
                elif isinstance(s, ast.Slice) or (isinstance(s, ast.Constant) and s.value is Ellipsis):
                    continue
                else:
                    nones = None
                    break
            return _indexed(base, nones)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
            meth, recv = e.func.attr, e.func.value
            if any(isinstance(a, ast.Starred) for a in e.args):
                return [UNKNOWN]
            if isinstance(recv, ast.Name) and recv.id == "self":
                if meth in {m.name for m in self.cnode.body if isinstance(m, ast.FunctionDef)}:
                    return self.ev.method_returns(self.fi, self.cnode.name, meth, self.depth + 1)
                kind = self.attrs.get(meth)
                if kind is not None and kind[0] == "torch_params":
                    return [(True, False, None)]
                return [UNKNOWN]
            if isinstance(recv, ast.Name) and recv.id in ("torch", "F", "nn"):
                return [UNKNOWN]
            base = self.val(recv, before, depth + 1)
            return _through(meth, base, _ast_sized_rank(e) if meth in _SIZED else None)
        return [UNKNOWN]


def _ast_sized_rank(e: ast.Call) -> Optional[int]:
    """``_sized_rank`` for the stdlib ``ast``: the rank written in ``view``/``reshape``/``permute``/..."""
    if e.keywords:
        return None
    if len(e.args) == 1:
        v = e.args[0]
        if isinstance(v, (ast.Tuple, ast.List)):
            return None if any(isinstance(x, ast.Starred) for x in v.elts) else len(v.elts)
        return 1 if isinstance(v, ast.Constant) and isinstance(v.value, int) and not isinstance(v.value, bool) else None
    return len(e.args)


def _ast_attrs(cnode: ast.ClassDef) -> dict:
    """attr -> ("parameter" | "buffer", rank or None) or ("torch_params", None) for what the
    class's own ``__init__`` sets once: ``nn.Parameter(...)``, ``register_buffer("a", ...)``,
    a torch submodule holding parameters; an attribute set twice or otherwise is left out."""
    init = next((m for m in cnode.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
    out: dict = {}
    seen: dict = {}
    for n in ast.walk(init) if init is not None else ():
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    seen[t.attr] = seen.get(t.attr, 0) + 1
                    v = n.value
                    name = ""
                    if isinstance(v, ast.Call):
                        name = v.func.attr if isinstance(v.func, ast.Attribute) else getattr(v.func, "id", "")
                    if name == "Parameter":
                        out[t.attr] = ("parameter", _ast_param_rank(v))
                    elif name in _PARAM_MODULES and isinstance(v.func, ast.Attribute) \
                            and ast.unparse(v.func.value) in ("nn", "torch.nn"):
                        out[t.attr] = ("torch_params", None)
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "register_buffer"
              and isinstance(n.func.value, ast.Name) and n.func.value.id == "self" and n.args
              and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)):
            seen[n.args[0].value] = seen.get(n.args[0].value, 0) + 1
            out[n.args[0].value] = ("buffer", None)
    return {k: v for k, v in out.items() if seen.get(k) == 1}


_BINDING = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.With)
#: ``_BINDING`` as a set of types: concrete libcst classes without subclasses, so a type test
#: answers as ``isinstance`` without ``ABCMeta.__instancecheck__`` for each node that is none
_BINDING_TYPES = frozenset(_BINDING)


def _binding_nodes(ctx, fn: cst.FunctionDef) -> tuple[list, list]:
    """The statements of fn that bind names (assignments, `for`, `with`) and its `return <value>`
    statements, each in source order: one walk per function and check, not one per name asked."""
    cache = _state(ctx).setdefault("binding", {})
    got = cache.get(id(fn))
    if got is None or got[0] is not fn:
        binds: list = []
        rets: list = []
        bind_types, ret_type = _BINDING_TYPES, cst.Return
        for n in iter_nodes(fn.body):
            t = type(n)
            if t in bind_types:
                binds.append(n)
            elif t is ret_type and n.value is not None:
                rets.append(n)
        got = cache[id(fn)] = (fn, binds, rets)
    return got[1], got[2]


def _binds(n: cst.CSTNode, name: str) -> bool:
    tgt = getattr(n, "target", None)
    if isinstance(n, cst.With):
        return any(it.asname is not None and isinstance(it.asname.name, cst.Name) and it.asname.name.value == name
                   for it in n.items)
    return any(isinstance(x, cst.Name) and x.value == name for x in iter_nodes(tgt)) if tgt is not None else False


def _indexed(base: list[Val], nones: Optional[int]) -> list[Val]:
    """The values of ``v[...]`` for each value ``v`` of ``base``: not a leaf; ``nones`` ``None``
    indexes add as many dims (None: the index is not only ``None``, ``:`` and ``...``; rank unknown)."""
    return [(g, False if g is not None else None, (r + nones) if (r is not None and nones is not None) else None)
            for g, _l, r in base]


def _through(meth: str, base: list[Val], sized: Optional[int]) -> list[Val]:
    """The values of ``v.<meth>(...)`` for each value ``v`` of ``base`` (both evaluators'; ``sized``:
    the rank a ``view`` / ``reshape`` / ... call writes)."""
    if meth == "detach":
        return [(False if g is not None else None, True, r) for g, _l, r in base]
    out: list[Val] = []
    for g, leaf, r in base:
        if meth in _SIZED:
            out.append((g, False if g is not None else None, sized))
        elif meth == "unsqueeze":
            out.append((g, False if g is not None else None, r + 1 if r is not None else None))
        elif meth == "contiguous":
            out.append((g, leaf, r))  # a no-op on a contiguous leaf (measured: the leaf passes)
        elif meth in _SAME_RANK:
            out.append((g, False if g is not None else None, r))
        else:
            out.append(UNKNOWN)
    return out


def _binop(a: Val, b: Val) -> Val:
    ga, _la, ra = a
    gb, _lb, rb = b
    g = True if (ga or gb) else (None if (ga is None or gb is None) else False)
    if ra is not None and rb is not None:
        r = max(ra, rb)
    elif (ra == 4 and rb is None) or (rb == 4 and ra is None):
        r = 4  # broadcasting: at least 4, and SDPA takes no more
    else:
        r = None
    return (g, False, r)


def _state(ctx) -> dict:
    """This rule's caches for one file's check (node order per function, `__init__` ranks), kept
    on the rule context: no module-level state shared between concurrent lints."""
    st = ctx.__dict__.get("_sdpa_mask")
    if st is None:
        st = ctx.__dict__["_sdpa_mask"] = {"order": {}}
    return st


def _init_ranks(ctx) -> dict[tuple[str, str], Optional[int]]:
    """(class, attr) -> dims of the tensor an `__init__` wraps in a Parameter / Buffer when it is
    a factory call with its sizes written (`torch.zeros(h, n, n)`, `torch.zeros((a, b))`); None
    when set more than once or otherwise."""
    st = _state(ctx)
    got = st.get("ranks")
    if got is not None:
        return got
    out: dict[tuple[str, str], Optional[int]] = {}
    built: dict[tuple[str, str], set] = {}
    # ctx.text may be the reduced text (an __init__'s plain statements folded into marks): the
    # model keeps the file's own text then
    text = getattr(ctx.model, "source_text", None) or ctx.text
    tree = None
    if ctx.project is not None:
        # the run's one stdlib tree of the file (semantics.project.file_tree), when it is of
        # this very text (an editor's buffer, stdin: the project may hold another)
        from exportlint.semantics.project import file_text, file_tree

        if file_text(ctx.project, ctx.path) == text:
            tree = file_tree(ctx.project, ctx.path)
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError):
            tree = None
    for c in ast.walk(tree) if tree is not None else ():
        if not isinstance(c, ast.ClassDef):
            continue
        for init in c.body:
            if not (isinstance(init, ast.FunctionDef) and init.name == "__init__"):
                continue
            for n in ast.walk(init):
                if not isinstance(n, ast.Assign):
                    continue
                for t in n.targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        key = (c.name, t.attr)
                        rank = _ast_param_rank(n.value)
                        out[key] = rank if key not in out else (rank if out[key] == rank else None)
                        arms = [n.value.body, n.value.orelse] if isinstance(n.value, ast.IfExp) else [n.value]
                        built.setdefault(key, set()).update(
                            a.func.id for a in arms if isinstance(a, ast.Call) and isinstance(a.func, ast.Name))
    st["ranks"] = out
    st["built"] = built
    return out


def _init_built(ctx) -> dict[tuple[str, str], set]:
    """(class, attr) -> the names of the classes ``__init__`` calls for ``self.<attr> = Name(...)``,
    either arm of ``Name(...) if cond else None``, read from the file's text like the ranks (the reduced
    parse folds such values into config marks)."""
    _init_ranks(ctx)
    return _state(ctx)["built"]


def _ast_param_rank(v: ast.expr) -> Optional[int]:
    if not (isinstance(v, ast.Call) and v.args):
        return None
    name = v.func.attr if isinstance(v.func, ast.Attribute) else getattr(v.func, "id", "")
    if name != "Parameter":
        return None
    inner = v.args[0]
    if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
            and isinstance(inner.func.value, ast.Name) and inner.func.value.id == "torch"
            and "torch." + inner.func.attr in _FACTORIES and inner.func.attr not in ("Tensor", "FloatTensor")):
        return None
    if any(isinstance(a, ast.Starred) for a in inner.args) or not inner.args:
        return None
    if len(inner.args) == 1:
        a = inner.args[0]
        if isinstance(a, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in a.elts):
            return len(a.elts)
        if isinstance(a, (ast.Name, ast.Attribute, ast.Call)):
            return None  # a size object or an int: not known
        return 1
    return len(inner.args)


def _order(ctx, fn: cst.FunctionDef) -> dict[int, int]:
    """Source order of the nodes of fn (pre-order, children left to right)."""
    cache = _state(ctx)["order"]
    got = cache.get(id(fn))
    if got is None or got.get(-1) is not fn:  # type: ignore[comparison-overlap]
        got = {}
        stack: list[cst.CSTNode] = [fn]
        i = 0
        while stack:
            n = stack.pop()
            got[id(n)] = i
            i += 1
            stack.extend(reversed(child_nodes(n)))
        got[-1] = fn  # type: ignore[assignment]
        cache[id(fn)] = got
    return got


def _pos(ctx, fn: cst.FunctionDef, node: cst.CSTNode) -> int:
    return _order(ctx, fn).get(id(node), 1 << 30)


def _hazard(v: Val) -> bool:
    g, leaf, r = v
    return g is True and leaf is False and r in (2, 4)


def _transposed_of(e: cst.BaseExpression, name: str) -> bool:
    """e is `name.transpose(1, 2)` / `(2, 1)` / `name.permute(0, 2, 1, 3)`, possibly `.contiguous()` after."""
    while isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "contiguous":
        e = e.func.value
    if not (isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute)):
        return False
    recv = e.func.value
    if not (isinstance(recv, cst.Name) and recv.value == name):
        return False
    vals = [literal_value(a.value) for a in e.args]
    if e.func.attr.value == "transpose":
        return sorted(v for v in vals if isinstance(v, int)) == [1, 2] and len(vals) == 2
    if e.func.attr.value == "permute":
        if len(vals) == 1 and isinstance(vals[0], (tuple, list)):
            vals = list(vals[0])
        return vals == [0, 2, 1, 3]
    return False


@register
class SdpaGradMaskView(Rule):
    code = "EXL127"
    name = "sdpa-grad-mask-view"
    severity = Severity.WARNING
    exporters = ("onnx-dynamo",)
    summary = ("F.scaled_dot_product_attention with a 2-D/4-D mask computed from parameters, output transposed "
               "and reshaped: onnx-dynamo fails (Cannot view a tensor).")

    def check(self, ctx):
        try:
            self._check(ctx)
        finally:
            ctx.__dict__.pop("_sdpa_mask", None)
        return ()

    def _check(self, ctx) -> None:
        for fn in ctx.model.functions:
            if fn.cls is not None and ctx.project is not None:
                self._check_dispatch(ctx, fn)
            sdpa_out: dict[str, tuple[cst.Call, list[Val]]] = {}
            for call in fn.calls:
                if (call.qualname or "") not in _SDPA:
                    continue
                mask = call.kwarg("attn_mask")
                mexpr = mask.value if mask is not None else (
                    call.positional()[3].value if len(call.positional()) > 3 else None)
                if mexpr is None or _no_grad_context(fn.node, call):
                    continue
                ev = _Eval(ctx, fn.cls)
                vals = ev.ev(mexpr, fn.node, _pos(ctx, fn.node, call.node))
                if not any(_hazard(v) for v in vals):
                    continue
                tgt = _assigned_name(fn.node, call.node)
                if tgt is not None:
                    sdpa_out[tgt] = (call.node, vals, ev.notes)
            if not sdpa_out:
                continue
            for n in iter_nodes(fn.node.body):
                if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
                        and n.func.attr.value in ("reshape", "view", "flatten")):
                    continue
                for name, (sd, _vals, notes) in sdpa_out.items():
                    if _transposed_of(n.func.value, name) and _pos(ctx, fn.node, n) > _pos(ctx, fn.node, sd):
                        msg = _MESSAGE.format(src=snippet(ctx, n), sdpa=snippet(ctx, sd.func))
                        if notes:
                            msg += _HANDED.format(which=", ".join(f"`{x}`" for x in dict.fromkeys(notes)))
                        ctx.report(n, msg)
                        break


    def _check_dispatch(self, ctx, fn) -> None:
        """The attention function picked from a mapping object (see _dispatch_targets)."""
        targets = _dispatch_targets(ctx, fn)
        if not targets:
            return
        sites = {id(c.node): c for c in fn.calls}
        for n in iter_nodes(fn.node.body):
            if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value in targets):
                continue
            bind, funcs = targets[n.func.value]
            if _pos(ctx, fn.node, n) < _pos(ctx, fn.node, bind):
                continue
            site = sites.get(id(n))
            if site is not None and _no_grad_context(fn.node, site):
                continue
            if any(a.star for a in n.args if a.keyword is None and a.star == "*"):
                continue  # positions not known
            pos = [a for a in n.args if a.keyword is None and not a.star]
            kws = {a.keyword.value: a for a in n.args if a.keyword is not None}
            hit = None
            for path, fname, (params, kwonly, reach) in funcs:
                args = [a.value for i, a in enumerate(pos) if i < len(params) and params[i] in reach]
                args += [a.value for k, a in kws.items() if k in reach and (k in params or k in kwonly)]
                ev = _Eval(ctx, fn.cls)
                if any(_hazard(v) for a in args for v in ev.ev(a, fn.node, _pos(ctx, fn.node, n))):
                    hit = (path, fname)
                    break
            if hit is None:
                continue
            out = _result_name(fn.node, n)
            if out is None:
                continue
            for m in iter_nodes(fn.node.body):
                if (isinstance(m, cst.Call) and isinstance(m.func, cst.Attribute)
                        and m.func.attr.value in ("reshape", "view", "flatten")
                        and isinstance(m.func.value, cst.Name) and m.func.value.value == out
                        and _pos(ctx, fn.node, m) > _pos(ctx, fn.node, n)):
                    ctx.report(m, _DISPATCH_MESSAGE.format(
                        src=snippet(ctx, m), call=snippet(ctx, n.func), pick=snippet(ctx, bind.value.func if isinstance(bind.value, cst.Call) else bind.value),
                        fname=hit[1], file=os.path.basename(hit[0])))
                    break


_HANDED = (" The mask comes from a submodule built from a class handed to the constructor; of the classes "
           "the project's constructions pass, {which} returns such a mask (the others may not).")

_DISPATCH_MESSAGE = (
    "`{src}` reshapes what `{call}(...)` returns, an attention function picked from a mapping "
    "(`{pick}`); one it may pick, `{fname}` ({file}), hands the argument given here, computed from "
    "parameters (it requires grad, is not a leaf) with 2 or 4 dims, to `F.scaled_dot_product_attention` "
    "as `attn_mask` and returns the output transposed: when that function is the one picked, onnx-dynamo "
    "fails here with more than one head (measured, torch 2.13: 'Cannot view a tensor with shape ... and "
    "strides ...'). torch.export and the legacy exporter pass; so does the eager attention function. "
    "Pick the eager implementation for the export, pass the bias 3-D `(heads, N, N)`, or freeze the "
    "parameters (`requires_grad_(False)`) before exporting.")


_NO_GRAD = ("torch.no_grad", "torch.inference_mode", "torch.set_grad_enabled", "torch.autograd.no_grad",
            "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.inference_mode")


def _no_grad_context(fn: cst.FunctionDef, call) -> bool:
    """The SDPA call may run with grad off: under a test of `torch.is_grad_enabled()`, in a
    `with torch.no_grad()` / `inference_mode()` / `set_grad_enabled(...)` block, or in a function so
    decorated. Measured (probe_sdpa_view2.py `:nograd`): a mask computed from parameters (a gather,
    an Embedding, `bias * 2`) then exports; a plain view of a parameter (`bias.unsqueeze(0)`) still
    fails. The rule claims neither there."""
    for t in call.conds:
        for n in iter_nodes(t):
            if isinstance(n, cst.Attribute) and n.attr.value == "is_grad_enabled":
                return True
            if isinstance(n, cst.Name) and n.value == "is_grad_enabled":
                return True
    imports = call.fn.imports

    def grad_off(e: cst.BaseExpression) -> bool:
        f = e.func if isinstance(e, cst.Call) else e
        return (imports.resolve(f) or "") in _NO_GRAD

    if any(grad_off(d.decorator) for d in fn.decorators):
        return True
    for n in iter_nodes(fn.body):
        if type(n) is cst.With and any(grad_off(it.item) for it in n.items):
            if any(m is call.node for m in iter_nodes(n.body)):
                return True
    return False


def _assigned_name(fn: cst.FunctionDef, call: cst.Call) -> Optional[str]:
    for n in iter_nodes(fn.body):
        if isinstance(n, cst.Assign) and n.value is call and len(n.targets) == 1 \
                and isinstance(n.targets[0].target, cst.Name):
            return n.targets[0].target.value
    return None


_MESSAGE = ("`{src}` reshapes the transposed output of the `{sdpa}` call above, whose "
            "`attn_mask` is computed from parameters (it requires grad, is not a leaf) and has 2 or 4 dims: "
            "onnx-dynamo fails here with more than one head (measured, torch 2.13: 'Cannot view a tensor with "
            "shape ... and strides ...' in its decomposition step; `.contiguous()` does not help). torch.export "
            "and the legacy exporter pass. Pass a 3-D mask `(heads, N, N)` (SDPA broadcasts it), or freeze the "
            "parameters (`requires_grad_(False)`) before exporting.")


# --------------------------------------------------------------------------- attention picked from a mapping
# transformers' shape of the class (probes_zoo12/probe_registry_sdpa.py): the attention module picks
# its function from a mapping object by a config string (`fn = REG.get_interface(impl, eager_fn)`),
# calls it with the bias as the mask (`fn(self, q, k, v, bias, ...)` / `position_bias=bias`), and
# reshapes what it returns; the SDPA function hands that argument to SDPA as `attn_mask` and
# returns the output transposed. onnx-dynamo fails at the caller's reshape (measured, torch 2.13:
# 'Cannot view a tensor'); with the eager function, a detached bias, zeros or one head it passes.

#: (positional parameters, keyword-only parameters, the parameters that reach SDPA's attn_mask)
Summary = tuple[list, list, frozenset]
_MAX_FEED_DEPTH = 6


def _chain_root(e: ast.AST) -> tuple[Optional[str], bool]:
    """The name at the root of `x.reshape(...).transpose(1, 2).contiguous()` (methods, attributes,
    subscripts) and whether the chain swaps dims 1 and 2 (`transpose(1, 2)`, `permute(0, 2, 1, 3)`)."""
    swapped = False
    while True:
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
            vals = [a.value for a in e.args if isinstance(a, ast.Constant)]
            if e.func.attr == "transpose" and len(e.args) == 2 and sorted(vals) == [1, 2]:
                swapped = True
            elif e.func.attr == "permute" and vals == [0, 2, 1, 3] and len(e.args) == 4:
                swapped = True
            e = e.func.value
        elif isinstance(e, (ast.Attribute, ast.Subscript)):
            e = e.value
        else:
            break
    return (e.id if isinstance(e, ast.Name) else None), swapped


class _AstFn:
    """One function of another file (stdlib ast), for the mask-reaching summary."""

    def __init__(self, fdef: ast.FunctionDef, imports: dict, local_fns) -> None:
        #: local_fns(name): a top-level function of the same file (ast), or None
        self.fdef, self.imports, self.local_fns = fdef, imports, local_fns
        a = fdef.args
        self.params = [p.arg for p in a.posonlyargs + a.args]
        self.kwonly = [p.arg for p in a.kwonlyargs]
        self.assigns: list[tuple[int, str, ast.AST]] = []
        self.returns: list[ast.AST] = []
        for n in ast.walk(fdef):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                self.assigns.append((n.lineno, n.targets[0].id, n.value))
            elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
                self.assigns.append((n.lineno, n.target.id, n.value))
            elif isinstance(n, ast.Return) and n.value is not None:
                self.returns.append(n.value)
        self.assigns.sort(key=lambda t: t[0])

    def feeders(self, e: Optional[ast.AST], line: int, depth: int = 0) -> set:
        """The parameters whose tensor may flow into e's value (read at `line`): not those read
        only for an attribute (`q.shape`, `k.dtype`, `q.device`)."""
        if e is None or depth > _MAX_FEED_DEPTH:
            return set()
        if isinstance(e, ast.Name):
            out = {e.id} if e.id in self.params or e.id in self.kwonly else set()
            for ln, name, v in self.assigns:
                if name == e.id and ln < line:
                    out |= self.feeders(v, ln, depth + 1)
            return out
        if isinstance(e, ast.BinOp):
            return self.feeders(e.left, line, depth + 1) | self.feeders(e.right, line, depth + 1)
        if isinstance(e, ast.IfExp):
            return self.feeders(e.body, line, depth + 1) | self.feeders(e.orelse, line, depth + 1)
        if isinstance(e, ast.UnaryOp):
            return self.feeders(e.operand, line, depth + 1)
        if isinstance(e, ast.Subscript):
            return self.feeders(e.value, line, depth + 1)
        if isinstance(e, ast.Call):
            args = [a for a in e.args if not isinstance(a, ast.Starred)]
            kws = {k.arg: k.value for k in e.keywords if k.arg is not None}
            if isinstance(e.func, ast.Attribute) and not (isinstance(e.func.value, ast.Name)
                                                          and e.func.value.id in self.imports):
                # a method of a value (`m.masked_fill(...)`, `m.to(q.device)`): the value and the arguments
                out = self.feeders(e.func.value, line, depth + 1)
            else:
                out = set()
            helper = self.local_fns(e.func.id) if isinstance(e.func, ast.Name) else None
            if helper is not None and depth < _MAX_FEED_DEPTH:
                # a function of the same file: only the arguments its returned value reads
                h = _AstFn(helper, self.imports, self.local_fns)
                reach = set()
                for r in h.returns:
                    reach |= h.feeders(r, getattr(r, "lineno", 1 << 30) + 1, depth + 1)
                for i, a in enumerate(args):
                    if i < len(h.params) and h.params[i] in reach:
                        out |= self.feeders(a, line, depth + 1)
                for k, v in kws.items():
                    if k in reach:
                        out |= self.feeders(v, line, depth + 1)
                return out
            for a in args + list(kws.values()):
                out |= self.feeders(a, line, depth + 1)
            return out
        return set()

    def summary(self) -> Optional[Summary]:
        """When the function calls SDPA and returns its output transposed (1, 2): the parameters
        that reach SDPA's attn_mask; None otherwise."""
        reach: set = set()
        outs: dict[str, int] = {}
        for n in ast.walk(self.fdef):
            if not (isinstance(n, ast.Call) and ast_qualname(self.imports, n.func) in _SDPA):
                continue
            m = next((k.value for k in n.keywords if k.arg == "attn_mask"), None)
            if m is None and len(n.args) > 3 and not any(isinstance(a, ast.Starred) for a in n.args[:4]):
                m = n.args[3]
            got = self.feeders(m, n.lineno)
            if not got:
                continue
            for ln, name, v in self.assigns:
                if v is n:
                    outs[name] = ln
                    reach |= got
        if not reach:
            return None
        derived = set(outs)
        swapped: set = set()
        start = min(outs.values())
        for ln, name, v in self.assigns:
            if ln <= start:
                continue
            root, sw = _chain_root(v)
            if root in derived:
                derived.add(name)
                if sw:
                    swapped.add(name)
                elif root != name or name not in swapped:
                    swapped.discard(name)
            elif name in derived:
                derived.discard(name)
                swapped.discard(name)
        for r in self.returns:
            first = r.elts[0] if isinstance(r, ast.Tuple) and r.elts else r
            if isinstance(first, ast.Name) and first.id in swapped:
                return list(self.params), list(self.kwonly), frozenset(reach)
        return None


def _file_functions(proj, path: str):
    """name -> that top-level function of the file (ast), read on demand (semantics.project.top_level_ast)."""
    from exportlint.semantics.project import top_level_ast

    def get(name: str) -> Optional[ast.FunctionDef]:
        n = top_level_ast(proj, path, name)
        return n if isinstance(n, ast.FunctionDef) else None
    return get


def _mapping_functions(ctx, qual: str) -> list[tuple[str, str, Summary]]:
    """The functions a module-level mapping object holds, each (path, name, summary) when it
    is an SDPA function of the class above: `REG = Registry()` whose class (of the project)
    keeps them in a class-level dict literal (`_global_mapping = {"sdpa": sdpa_fn, ...}`)."""
    from exportlint.semantics.project import run_memo, top_level_ast

    proj = ctx.project
    cache = run_memo(proj, "sdpa_mask.mappings")  # the same for every file of the run
    if qual in cache:
        got, read = cache[qual]
        ctx.project_calls()["deps"].update(read)
        return got
    out: list = []
    deps: set = set()
    cache[qual] = (out, deps)
    try:
        _read_mapping(proj, qual, out, deps, top_level_ast)
    finally:
        ctx.project_calls()["deps"].update(deps)
    return out


def _read_mapping(proj, qual: str, out: list, deps: set, top_level_ast) -> None:
    mod, _, name = qual.rpartition(".")
    r = proj.resolve(mod, deps) if mod else None
    if r is None or r[1]:
        return
    fi = r[0]
    for _ in range(3):  # a re-export: `from .modeling_utils import REG`
        if name in fi.imports and name not in fi.assigned:
            m2, _, n2 = fi.imports[name].rpartition(".")
            r = proj.resolve(m2, deps) if m2 else None
            if r is None or r[1]:
                return
            fi, name = r[0], n2
    if name not in fi.assigned:
        return
    st = top_level_ast(proj, fi.path, name)
    v = st.value if isinstance(st, (ast.Assign, ast.AnnAssign)) else None
    ctor = v.func.id if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) else None
    if ctor is None:
        return
    cfi, cname = fi, ctor
    if ctor not in fi.classes:
        rc = proj.resolve_class(fi.imports[ctor], deps) if ctor in fi.imports else None
        if rc is None:
            return
        cfi, cname = rc
    cdef = top_level_ast(proj, cfi.path, cname)
    if not isinstance(cdef, ast.ClassDef):
        return
    names = []
    for st in cdef.body:
        v = st.value if isinstance(st, (ast.Assign, ast.AnnAssign)) else None
        if isinstance(v, ast.Dict):
            names += [x.id for x in v.values if isinstance(x, ast.Name)]
    seen: set = set()
    for n in names:
        if n in seen:
            continue
        seen.add(n)
        if n in cfi.functions:
            path, fname, fimports = cfi.path, n, cfi.imports
        elif n in cfi.imports:
            t = proj.resolve_function(cfi.imports[n], deps)
            if t is None or t.is_method:
                continue
            path, fname = t.path, t.qual
            tfi = proj.index_path(path)
            if tfi is None:
                continue
            fimports = tfi.imports
        else:
            continue
        local = _file_functions(proj, path)
        fdef = local(fname)
        if fdef is None:
            continue
        s = _AstFn(fdef, fimports, local).summary()
        if s is not None:
            out.append((path, fname, s))


def _dispatch_targets(ctx, fn) -> dict[str, tuple[cst.CSTNode, list]]:
    """Names fn binds to a lookup in a module-level mapping object (`f = REG.get(k, d)`,
    `f = REG[k]`) that holds SDPA functions of the class above: name -> (binding, functions)."""
    out: dict[str, tuple[cst.CSTNode, list]] = {}
    if ctx.project is None:
        return out
    # calls of a bare name that is no function of the file nor an import: a local callable
    called = {c.node.func.value for c in fn.calls
              if isinstance(c.node.func, cst.Name) and c.node.func.value not in ctx.model.module_functions
              and c.node.func.value not in ctx.model.classes and c.node.func.value not in ctx.model.imports.names}
    if not called:
        return out
    fi = None
    for n in iter_nodes(fn.node.body):
        t = type(n)  # (exact types: concrete libcst classes, none subclassed; see _BINDING_TYPES)
        if t is cst.Assign and len(n.targets) == 1:
            tgt, v = n.targets[0].target, n.value
        elif t is cst.AnnAssign and n.value is not None:
            tgt, v = n.target, n.value
        else:
            continue
        if not isinstance(tgt, cst.Name) or tgt.value not in called:
            continue
        recv = v.func.value if isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) else (
            v.value if isinstance(v, cst.Subscript) else None)
        if not isinstance(recv, cst.Name):
            continue
        q = ctx.model.imports.resolve(recv)
        if not q or q.startswith(("torch.", "builtins.")) or "." not in q:
            continue
        if fi is None:
            fi = ctx.project.index_path(ctx.path)
            if fi is None:
                return out
        funcs = _mapping_functions(ctx, ctx.project.absolute(fi, q))
        if funcs:
            out[tgt.value] = (n, funcs)
    return out


def _result_name(fn: cst.FunctionDef, call: cst.Call) -> Optional[str]:
    """`out = f(...)` / `out, w = f(...)`: the name of the first value."""
    for n in iter_nodes(fn.body):
        if isinstance(n, cst.Assign) and n.value is call and len(n.targets) == 1:
            t = n.targets[0].target
            if isinstance(t, (cst.Tuple, cst.List)) and t.elements:
                t = t.elements[0].value
            return t.value if isinstance(t, cst.Name) else None
    return None
