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
``nn.Parameter(torch.zeros(a, b))``). Reported at the reshape of the transposed output in the
same function. A warning: the head count is a config value the linter does not know (one head
exports), and the mask's other definitions (a flag choosing another path) may be what runs.
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
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

    def ev(self, e: cst.BaseExpression, fn: cst.FunctionDef, before: int, depth: int = 0) -> list[Val]:
        if depth > 12:
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
            nones = 0
            for el in e.slice:
                s = el.slice
                if isinstance(s, cst.Index) and isinstance(s.value, cst.Name) and s.value.value == "None":
                    nones += 1
                elif isinstance(s, cst.Slice) or (isinstance(s, cst.Index) and isinstance(s.value, cst.Ellipsis)):
                    continue
                else:
                    nones = None
                    break
            return [(g, False if g is not None else None, (r + nones) if (r is not None and nones is not None) else None)
                    for g, _l, r in base]
        if isinstance(e, cst.Call):
            return self.call_vals(e, fn, before, depth)
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
                return [UNKNOWN]
            if isinstance(recv, cst.Name) and self.m.imports.resolve(func) is not None \
                    and (self.m.imports.resolve(func) or "").startswith("torch."):
                return [UNKNOWN]  # torch.<fn>(...)
            base = self.ev(recv, fn, before, depth + 1)
            if meth == "detach":
                return [(False if g is not None else None, True, r) for g, _l, r in base]
            args = list(e.args)
            out = []
            for g, leaf, r in base:
                if meth in _SIZED:
                    nr = _sized_rank(args)
                    out.append((g, False if g is not None else None, nr))
                elif meth == "unsqueeze":
                    out.append((g, False if g is not None else None, r + 1 if r is not None else None))
                elif meth == "squeeze":
                    dims = [a for a in args if a.keyword is None]
                    out.append((g, False if g is not None else None,
                                r - 1 if (r is not None and len(dims) == 1 and isinstance(dims[0].value, (cst.Integer, cst.UnaryOperation))) else None))
                elif meth == "contiguous":
                    out.append((g, leaf, r))  # a no-op on a contiguous leaf (measured: the leaf passes)
                elif meth in _SAME_RANK:
                    out.append((g, False if g is not None else None, r))
                else:
                    out.append(UNKNOWN)
            return out
        return [UNKNOWN]

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
        return out or [UNKNOWN]


_BINDING = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.With)


def _binding_nodes(ctx, fn: cst.FunctionDef) -> tuple[list, list]:
    """The statements of fn that bind names (assignments, `for`, `with`) and its `return <value>`
    statements, each in source order: one walk per function and check, not one per name asked."""
    cache = _state(ctx).setdefault("binding", {})
    got = cache.get(id(fn))
    if got is None or got[0] is not fn:
        binds: list = []
        rets: list = []
        for n in iter_nodes(fn.body):
            if isinstance(n, _BINDING):
                binds.append(n)
            elif isinstance(n, cst.Return) and n.value is not None:
                rets.append(n)
        got = cache[id(fn)] = (fn, binds, rets)
    return got[1], got[2]


def _binds(n: cst.CSTNode, name: str) -> bool:
    tgt = getattr(n, "target", None)
    if isinstance(n, cst.With):
        return any(it.asname is not None and isinstance(it.asname.name, cst.Name) and it.asname.name.value == name
                   for it in n.items)
    return any(isinstance(x, cst.Name) and x.value == name for x in iter_nodes(tgt)) if tgt is not None else False


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
    st["ranks"] = out
    return out


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
                    sdpa_out[tgt] = (call.node, vals)
            if not sdpa_out:
                continue
            for n in iter_nodes(fn.node.body):
                if not (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
                        and n.func.attr.value in ("reshape", "view", "flatten")):
                    continue
                for name, (sd, _vals) in sdpa_out.items():
                    if _transposed_of(n.func.value, name) and _pos(ctx, fn.node, n) > _pos(ctx, fn.node, sd):
                        ctx.report(n, _MESSAGE.format(src=snippet(ctx, n), sdpa=snippet(ctx, sd.func)))
                        break


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
        if isinstance(n, cst.With) and any(grad_off(it.item) for it in n.items):
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
