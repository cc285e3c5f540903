"""EXL128: a ``forward`` parameter with a Python bool/int default handed to an argument that must
be a Python value: the legacy exporter passes it in as a tensor.

Measured with torch 2.13.0 (``bench/labels/probes_zoo11/probe_legacy_default_scalar.py``, output
next to it; rules/EXL128.md): ``torch.onnx.export(model, (x,), dynamo=False)`` fills every
defaulted parameter of the exported ``forward`` positionally (``_decide_input_format``) and the
tracer turns Python bools, ints and floats among the arguments into tensors (graph inputs). So in
the exported module's ``forward(self, x, flag: bool = False, n: int = 2)``:

- ``F.scaled_dot_product_attention(..., is_causal=flag)`` / ``enable_gqa=flag``,
  ``x.sum(1, keepdim=flag)``, ``F.interpolate(..., align_corners=flag)``,
  ``F.dropout(x, training=flag)`` fail: ``TypeError: ... argument 'is_causal' must be bool, not
  Tensor`` (also when the value is given at the call, positionally);
- ``torch.cat(xs, dim=n)``, ``x.transpose(n, 3)``, ``x.softmax(n)`` fail: ``SymbolicValueError:
  Expected node type 'onnx::Constant' for argument 'dim' ..., got 'prim::Param'``;
- ``if flag:``, ``x.sum(n)``, ``F.dropout(p=s)``: pass.

timm's EVA (``eva.py:279``) fails this way: its model ``forward`` takes ``is_causal: bool = False``
and hands it down to SDPA. torch.export and onnx-dynamo keep Python values Python.

Reported at the use, in a ``forward`` whose own parameter (not rebound there) reaches the
argument. A warning: only the exported module's ``forward`` (or one its ``forward`` passes its
own parameter down to) is affected, and the file does not show which module is exported.
"""

from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.imports import dotted
from exportlint.semantics.model import literal_value
from exportlint.semantics.kinds import DATA_SIZED, TENSORISH
from exportlint.semantics.nodes import assigned_names
from exportlint.semantics.reduce import defines_forward_wrapper

#: keyword arguments that must be Python bools (measured: TypeError with a tensor)
_BOOL_KW = {
    "is_causal": ("torch.nn.functional.scaled_dot_product_attention",),
    "enable_gqa": ("torch.nn.functional.scaled_dot_product_attention",),
    "align_corners": ("torch.nn.functional.interpolate", "torch.nn.functional.upsample",
                      "torch.nn.functional.grid_sample"),
    "training": ("torch.nn.functional.dropout",),
    "keepdim": None,  # any torch reduction / tensor method
}
#: dims that must be constants (measured: SymbolicValueError 'Expected node type onnx::Constant')
_DIM_FUNCS = {"torch.cat": 1, "torch.concat": 1, "torch.concatenate": 1}
_DIM_METHODS = {"softmax": 0, "log_softmax": 0, "transpose": None}


def _scalar_params(fn: cst.FunctionDef) -> dict[str, str]:
    """Parameters with a bool / int default written: name -> 'bool' | 'int'."""
    out: dict[str, str] = {}
    ps = list(fn.params.posonly_params) + list(fn.params.params) + list(fn.params.kwonly_params)
    for p in ps[1:]:
        if p.default is None:
            continue
        v = literal_value(p.default)
        if isinstance(v, bool):
            out[p.name.value] = "bool"
        elif isinstance(v, int):
            out[p.name.value] = "int"
    return out


def _tensor(kind: Optional[str]) -> bool:
    return kind in TENSORISH or kind == DATA_SIZED


@register
class LegacyScalarParam(Rule):
    code = "EXL128"
    name = "legacy-scalar-forward-param"
    severity = Severity.WARNING
    exporters = ("onnx-legacy",)
    summary = ("A forward's bool/int parameter used where a Python value is required (is_causal=, keepdim=, "
               "a dim): the legacy exporter passes it in as a tensor.")

    def check(self, ctx):
        for fn in ctx.model.functions:
            if not fn.is_forward or fn.cls is None or not fn.cls.is_module:
                continue
            params = _scalar_params(fn.node)
            if not params:
                continue
            rebound = assigned_names(fn.node.body)
            params = {k: v for k, v in params.items() if k not in rebound}
            if not params:
                continue
            for call in fn.calls:
                exps = ctx.model.exporters_at(call.node, fn.node)
                if exps is not None and "onnx-legacy" not in exps:
                    continue
                hit = self._use(call, params)
                if hit is None:
                    continue
                name, what = hit
                ctx.report(call.node, _MESSAGE.format(src=snippet(ctx, call.node), name=name, what=what))
        return ()

    @staticmethod
    def _use(call, params: dict[str, str]) -> Optional[tuple[str, str]]:
        q = call.qualname or ""
        meth = call.method
        for a in call.node.args:
            if a.keyword is None or not isinstance(a.value, cst.Name) or params.get(a.value.value) != "bool":
                continue
            kw = a.keyword.value
            if kw not in _BOOL_KW:
                continue
            allowed = _BOOL_KW[kw]
            if allowed is None:
                if q.startswith("torch.") or (meth and _tensor(call.receiver_kind)):
                    return a.value.value, f"`{kw}=` (it must be a Python bool)"
            elif q in allowed:
                return a.value.value, f"`{kw}=` (it must be a Python bool)"
        pos = call.positional()
        idx = _DIM_FUNCS.get(q)
        tensor_method = meth in _DIM_METHODS and (q.startswith("torch.Tensor.") or _tensor(call.receiver_kind))
        if idx is None and tensor_method:
            idx = _DIM_METHODS[meth]
        if idx is not None or (meth == "transpose" and tensor_method):
            cands = [a.value for a in pos] if idx is None else ([pos[idx].value] if len(pos) > idx else [])
            cands += [a.value for a in call.node.args if a.keyword is not None and a.keyword.value == "dim"]
            for v in cands:
                if isinstance(v, cst.Name) and params.get(v.value) == "int":
                    return v.value, "a dimension (it must be a constant)"
        return None


_MESSAGE = ("`{src}` passes `{name}`, a parameter of this forward with a Python default, as {what}: if this "
            "module is the one exported with the legacy ONNX exporter (or its forward passes its own `{name}` "
            "down to here), the exporter fills the default in positionally and the tracer turns it into a "
            "tensor, and the export fails (measured, torch 2.13: \"argument 'is_causal' must be bool, not "
            "Tensor\"; a dim: \"Expected node type 'onnx::Constant' ... got 'prim::Param'\"). torch.export and "
            "onnx-dynamo keep it a Python value. Read the option from the module (`self.{name}`, set in "
            "`__init__`) instead of a forward parameter of the exported module, or export with dynamo=True.")


# --------------------------------------------------------------------------- EXL130
# Measured with torch 2.13.0 (bench/labels/probes_zoo12/probe_legacy_wrapper_kwarg.py, output next
# to it; rules/EXL130.md): a forward decorated `@outer @inner` where `inner` returns a wrapper
# `(self, *args, **kwargs)` calling the forward with `*args, **kwargs`, and `outer`'s wrapper puts
# a forward parameter into `kwargs` by name when it does not find it among the parameters of the
# function it wraps (`func.__code__.co_varnames`: the inner wrapper's names). The legacy exporter
# fills every defaulted parameter of the exported forward positionally (it reads the signature
# through `__wrapped__`), so the inner wrapper's call gets it twice: "TypeError: forward() got
# multiple values for argument 'use_cache'" (transformers' BertModel / GPT2Model / LlamaModel:
# @merge_with_config_defaults @capture_outputs). Either decorator alone, and onnx-dynamo, pass.

def _ast_def(project, path: str, name: str) -> Optional[ast.FunctionDef]:
    from exportlint.semantics.project import top_level_ast

    n = top_level_ast(project, path, name)
    return n if isinstance(n, ast.FunctionDef) else None


class _Deco:
    """A decorator function (stdlib ast): the wrapper it defines and returns, when that takes
    `*args, **kwargs` and calls the wrapped function with them."""

    def __init__(self, d: ast.FunctionDef) -> None:
        self.wrapper: Optional[ast.FunctionDef] = None
        self.call: Optional[ast.Call] = None
        for outer in [d] + [n for n in d.body if isinstance(n, ast.FunctionDef)]:
            fparams = {a.arg for a in outer.args.posonlyargs + outer.args.args + outer.args.kwonlyargs}
            returned = {r.value.id for r in ast.walk(outer) if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)}
            for w in outer.body:
                if not (isinstance(w, ast.FunctionDef) and w.name in returned and w.args.vararg and w.args.kwarg):
                    continue
                va, kw = w.args.vararg.arg, w.args.kwarg.arg
                for c in ast.walk(w):
                    if (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in fparams
                            and any(isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == va
                                    for a in c.args)
                            and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kw
                                    for k in c.keywords)):
                        self.wrapper, self.call = w, c
                        return

    def kw_writes(self) -> set[str]:
        """Names the wrapper stores into its **kwargs: `kwargs["k"] = v`, `kwargs[name] = v` for
        `name` looping over a literal list of strings, `kwargs.setdefault("k", v)`."""
        w = self.wrapper
        if w is None:
            return set()
        kw = w.args.kwarg.arg
        lists: dict[str, set] = {}
        for n in ast.walk(w):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                got = _str_list(n.value)
                if got is not None:
                    lists[n.targets[0].id] = got
        loops: dict[str, set] = {}
        for n in ast.walk(w):
            if isinstance(n, ast.For) and isinstance(n.target, ast.Name):
                got = _str_list(n.iter) if not isinstance(n.iter, ast.Name) else lists.get(n.iter.id)
                if got:
                    loops[n.target.id] = got
        out: set[str] = set()

        def keys(e: ast.AST) -> set:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                return {e.value}
            if isinstance(e, ast.Name):
                return set(loops.get(e.id, ()))
            return set()

        for n in ast.walk(w):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == kw:
                        out |= keys(t.slice)
            elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "setdefault"
                  and isinstance(n.func.value, ast.Name) and n.func.value.id == kw and n.args):
                out |= keys(n.args[0])
        return out

    def pops(self) -> set[str]:
        w = self.wrapper
        if w is None:
            return set()
        kw = w.args.kwarg.arg
        out: set[str] = set()
        for n in ast.walk(w):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "pop"
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == kw and n.args
                    and isinstance(n.args[0], ast.Constant)):
                out.add(n.args[0].value)
            elif isinstance(n, ast.Delete):
                for t in n.targets:
                    if (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == kw
                            and isinstance(t.slice, ast.Constant)):
                        out.add(t.slice.value)
        return out

    def looks_up_params(self) -> bool:
        """The wrapper decides by the wrapped function's own parameter names (`__code__.co_varnames`,
        `inspect.signature`)."""
        w = self.wrapper
        return w is not None and any(
            (isinstance(n, ast.Attribute) and n.attr == "co_varnames")
            or (isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute))
                and (n.func.id if isinstance(n.func, ast.Name) else n.func.attr) == "signature")
            for n in ast.walk(w))

    def local_names(self) -> set[str]:
        w = self.wrapper
        if w is None:
            return set()
        names = {a.arg for a in w.args.posonlyargs + w.args.args + w.args.kwonlyargs}
        names |= {n.id for n in ast.walk(w) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        return names


def _str_list(e: ast.AST) -> Optional[set]:
    if isinstance(e, (ast.List, ast.Tuple)) and e.elts and all(
            isinstance(x, ast.Constant) and isinstance(x.value, str) for x in e.elts):
        return {x.value for x in e.elts}
    return None


@register
class LegacyWrapperDuplicateArgument(Rule):
    code = "EXL130"
    name = "legacy-wrapper-duplicate-argument"
    severity = Severity.WARNING
    exporters = ("onnx-legacy",)
    summary = ("A forward decorated by a wrapper that adds one of its parameters to **kwargs by name, inside "
               "another *args/**kwargs wrapper: the legacy exporter passes it positionally too (multiple values).")

    def check(self, ctx):
        project = ctx.project
        fi = None
        memo: dict[str, Optional[_Deco]] = {}
        for fn in ctx.model.functions:
            # (a forward reached first as a callee of another forward is still one an export may enter)
            if fn.node.name.value != "forward" or fn.cls is None or not fn.cls.is_module or not fn.node.decorators:
                continue
            if fi is None and project is not None:
                fi = project.index_path(ctx.path)
            decos = []
            for d in fn.node.decorators:
                e = d.decorator
                if not isinstance(e, (cst.Name, cst.Attribute)):
                    decos.append((d, None))
                    continue
                q = ctx.model.imports.resolve(e) or dotted(e) or ""
                if q not in memo:
                    memo[q] = self._deco(ctx, project, fi, q)
                decos.append((d, memo[q]))
            self._one(ctx, fn, decos)
        if project is not None and "wraps(" in ctx.text and defines_forward_wrapper(ctx.text):
            self._binder_side(ctx, project)
        return ()

    @staticmethod
    def _deco(ctx, project, fi, q: str) -> Optional[_Deco]:
        if q in ctx.model.module_functions:
            # this file's own decorator (its text: an editor's buffer may differ from the disk)
            try:
                tree = ast.parse(getattr(ctx.model, "source_text", None) or ctx.text)
            except (SyntaxError, ValueError, RecursionError):
                return None
            d = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == q), None)
            return _Deco(d) if d is not None else None
        if project is None or fi is None:
            return None
        from exportlint.semantics.project import run_memo

        absolute = project.absolute(fi, q)
        memo = run_memo(project, "legacy_params.decorators")  # the same for every file of the run
        if absolute not in memo:
            read: set = set()
            t = project.resolve_function(absolute, read)
            d = _ast_def(project, t.path, t.qual) if t is not None and not t.is_method else None
            memo[absolute] = (_Deco(d) if d is not None else None, read)
        got, read = memo[absolute]
        ctx.project_calls()["deps"].update(read)
        return got

    def _one(self, ctx, fn, decos) -> None:
        params = list(fn.node.params.posonly_params) + list(fn.node.params.params)
        defaulted = [p.name.value for p in params[1:] if p.default is not None]
        got = _duplicate(defaulted, [d for _, d in decos])
        if got is None:
            return
        i, name, inner = got
        node = decos[i][0]
        ctx.report(node, _WRAP_MESSAGE.format(
            deco=snippet(ctx, node.decorator), name=name, inner=snippet(ctx, decos[inner][0].decorator),
            cls=fn.cls.name))

    # ---- the inner wrapper's own file: where the exporter raises -------------------------------
    # The legacy exporter's TypeError is raised by the inner wrapper's `func(self, *args, **kwargs)`
    # (the zoo truth's failing line for BertModel & co.: transformers/utils/output_capturing.py, in
    # `@capture_outputs`), a file with no forward. When this file defines such a wrapper and a
    # forward of the run (any file) is decorated so that `_duplicate` names this wrapper as the one
    # whose call binds the doubled argument, the call is reported too, naming that forward.

    def _binder_side(self, ctx, project) -> None:
        from exportlint.semantics.project import index_of

        if getattr(project, "run_files", None) is None:
            return
        try:
            tree = ast.parse(getattr(ctx.model, "source_text", None) or ctx.text)
        except (SyntaxError, ValueError, RecursionError):
            return
        fi = index_of(project, ctx.path)
        if fi is None:
            return
        for d in tree.body:
            if not isinstance(d, ast.FunctionDef):
                continue
            deco = _Deco(d)
            if deco.wrapper is None or deco.call is None:
                continue
            user = self._user_of(ctx, project, f"{fi.module}.{d.name}", d.name)
            if user is None:
                continue
            node = _cst_binder_call(ctx.module, d.name, deco)
            if node is None:
                continue
            cls, where, name, outer = user
            ctx.report(node, _BINDER_MESSAGE.format(
                call=snippet(ctx, node), deco=d.name, cls=cls, where=where, name=name, outer=outer))

    @staticmethod
    def _user_of(ctx, project, absolute: str, short: str) -> Optional[tuple]:
        """(class, file, parameter, outer decorator) of the first forward of the run (files in path
        order) whose decorators make `absolute`'s wrapper the one that binds a doubled argument."""
        import os

        from exportlint.semantics.ctor_values import files_mentioning
        from exportlint.semantics.index import _resolve, ast_dotted
        from exportlint.semantics.project import index_of, run_memo, top_level_ast

        here = os.path.abspath(ctx.path)
        deps = ctx.project_calls()["deps"]
        memo = run_memo(project, "legacy_params.binder_decorators")
        for path, _text in files_mentioning(project, "@" + short):
            fi = index_of(project, path)
            if fi is None:
                continue
            deps.add(os.path.abspath(path))
            for cls, ci in fi.classes.items():
                if "forward" not in ci.methods or not fi.decorators.get(f"{cls}.forward"):
                    continue
                node = top_level_ast(project, path, cls)
                fwd = next((n for n in getattr(node, "body", ()) if isinstance(n, ast.FunctionDef)
                            and n.name == "forward"), None)
                if fwd is None or not fwd.decorator_list:
                    continue
                decos: list = []
                targets: list = []
                for e in fwd.decorator_list:
                    q = _resolve(fi.imports, ast_dotted(e)) if isinstance(e, (ast.Name, ast.Attribute)) else None
                    if not q:
                        decos.append(None)
                        targets.append(None)
                        continue
                    if "." not in q and fi.defines(q):
                        q = f"{fi.module}.{q}"
                    a = project.absolute(fi, q)
                    if a not in memo:
                        read: set = set()
                        t = project.resolve_function(a, read)
                        dd = _ast_def(project, t.path, t.qual) if t is not None and not t.is_method else None
                        memo[a] = (_Deco(dd) if dd is not None else None, read,
                                   (os.path.abspath(t.path), t.qual) if t is not None else None)
                    got = memo[a]
                    deps.update(got[1])
                    decos.append(got[0])
                    targets.append(got[2])
                if (here, short) not in targets:
                    continue
                pos = fwd.args.posonlyargs + fwd.args.args
                nd = len(fwd.args.defaults)
                # (as the forward side reads them: positional parameters after `self` with a default)
                defaulted = [p.arg for i, p in enumerate(pos) if i >= 1 and i >= len(pos) - nd]
                r = _duplicate(defaulted, decos)
                if r is None or targets[r[2]] != (here, short):
                    continue
                if not project.is_module_class(fi, cls):
                    continue
                i, name, _inner = r
                return cls, os.path.relpath(path, os.path.dirname(here)), name, ast_dotted(fwd.decorator_list[i])
        return None


def _cst_binder_call(module, fname: str, deco: "_Deco") -> Optional[cst.Call]:
    """The libcst node of `deco.call` (the wrapper's `func(self, *args, **kwargs)`) in the top-level
    function `fname` of the parsed module (None where the parse does not hold it)."""
    top = next((st for st in module.body if isinstance(st, cst.FunctionDef) and st.name.value == fname), None)
    if top is None:
        return None
    w = deco.wrapper
    va, kw = w.args.vararg.arg, w.args.kwarg.arg
    callee = deco.call.func.id
    found: list = []

    class _V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> Optional[bool]:
            if (not found and isinstance(node.func, cst.Name) and node.func.value == callee
                    and any(a.star == "*" and isinstance(a.value, cst.Name) and a.value.value == va for a in node.args)
                    and any(a.star == "**" and isinstance(a.value, cst.Name) and a.value.value == kw
                            for a in node.args)):
                found.append(node)
            return None

    for st in top.body.body if isinstance(top.body, cst.IndentedBlock) else ():
        st.visit(_V())
    return found[0] if found else None


def _duplicate(defaulted: list, decos: list) -> Optional[tuple[int, str, int]]:
    """(index of the decorator that puts a parameter into **kwargs, the parameter, index of the
    innermost wrapper, whose call binds the forward's signature) for decorators outermost first
    (`_Deco` each, None where unreadable), or None."""
    if not defaulted:
        return None
    wrappers = [i for i, d in enumerate(decos) if d is not None and d.wrapper is not None]
    if not wrappers:
        return None
    inner = wrappers[-1]  # its call binds the forward's own signature
    # every decorator inside it known not to wrap again (a project function without such a wrapper)
    if any(d is None for d in decos[inner + 1:]):
        return None
    binder = decos[inner]
    for i in range(inner + 1):
        d = decos[i]
        if d is None or d.wrapper is None:
            continue
        nxt = decos[i + 1] if i < inner else None
        hits = sorted(k for k in d.kw_writes() if k in defaulted and k not in binder.pops())
        if not hits:
            continue
        if d.looks_up_params():
            # it finds the name among the wrapped function's parameters (the forward's own, when
            # it is the innermost wrapper) unless that is another *args/**kwargs wrapper without
            # a local of that name
            if nxt is None or nxt.wrapper is None or hits[0] in nxt.local_names():
                continue
        return i, hits[0], inner
    return None


_BINDER_MESSAGE = (
    "`{call}` binds the decorated forward's own signature, and where an outer decorator has put a defaulted "
    "parameter into the keyword arguments the legacy ONNX exporter also passes positionally, this call raises: "
    "`{cls}.forward` ({where}) is decorated `@{outer}` over `@{deco}`, and exporting it with `dynamo=False` "
    "fails here (measured, torch 2.13: \"TypeError: {cls}.forward() got multiple values for argument "
    "'{name}'\"). torch.export and onnx-dynamo pass. Export a wrapper module whose forward calls the model "
    "with keywords, pass every argument at the export call (`kwargs=`), or export with dynamo=True.")

_WRAP_MESSAGE = (
    "`@{deco}` puts `{name}` into the keyword arguments it hands on (its wrapper does not see `{name}` among "
    "the parameters of the `*args, **kwargs` wrapper `@{inner}` gives it), and the legacy ONNX exporter fills "
    "every defaulted parameter of the exported forward positionally: exporting `{cls}` with `dynamo=False` "
    "fails in `@{inner}`'s call of the forward (measured, torch 2.13: \"TypeError: {cls}.forward() got "
    "multiple values for argument '{name}'\"). Each decorator alone, torch.export and onnx-dynamo pass. Export "
    "a wrapper module whose forward calls this one with keywords, pass every argument at the export call "
    "(`kwargs=`), or export with dynamo=True.")
