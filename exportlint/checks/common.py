"""Small helpers shared by the rule families."""

from __future__ import annotations

from typing import Collection, Optional

import libcst as cst

from exportlint.semantics.imports import dotted
from exportlint.semantics.nodes import assignments_in_scope, iter_nodes  # (assignments_in_scope re-exported)
from exportlint.semantics.model import MISSING, ClassFacts, ExportCall, literal_value
from exportlint.semantics.project import REACH_KEY

MAX_SNIPPET = 60


def snippet(ctx, node: cst.CSTNode) -> str:
    """Short one-line source of a node for messages."""
    try:
        s = " ".join(ctx.source_of(node).split())
    except Exception:  # pragma: no cover - defensive
        return "…"
    return s if len(s) <= MAX_SNIPPET else s[: MAX_SNIPPET - 1] + "…"


def call_arg(call: cst.Call, name: str, pos: int) -> Optional[cst.BaseExpression]:
    """The argument of a call given by keyword ``name`` or as the ``pos``-th positional one;
    None when absent, or when a ``*args`` (or ``**kwargs``) at or before that position hides
    where it is (one after it does not)."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a.value
    i = 0
    for a in call.args:
        if a.keyword is not None:
            continue
        if a.star:
            return None
        if i == pos:
            return a.value
        i += 1
    return None


def call_exporters(ec: ExportCall) -> tuple[str, ...]:
    """Which exporter an export call uses, from its API and literal keywords."""
    if ec.api == "torch.onnx.export":
        v = ec.kwarg("dynamo")
        if v is not None and literal_value(v) is False:
            return ("onnx-legacy",)
        return ("onnx-dynamo",)
    if ec.api == "torch.onnx.dynamo_export":
        return ("onnx-dynamo",)
    if ec.api.startswith("torch.export.") or ec.api == "torch._dynamo.export":
        v = ec.kwarg("strict")
        if v is not None and literal_value(v) is True:
            return ("export-strict",)
        return ("export-nonstrict",)
    if ec.api.startswith("torch.jit.trace"):
        return ("onnx-legacy",)
    return ()


def model_class_of(ctx, ec: ExportCall) -> Optional[ClassFacts]:
    """The local nn.Module class an export call exports, when the file shows it."""
    expr = ec.model
    seen = 0
    while expr is not None and seen < 5:
        seen += 1
        if isinstance(expr, cst.Call):
            f = expr.func
            if isinstance(f, cst.Attribute) and f.attr.value in ("eval", "to", "cpu", "float", "train", "requires_grad_"):
                expr = f.value
                continue
            name = dotted(f)
            if name and name in ctx.model.classes:
                return ctx.model.classes[name]
            return None
        if isinstance(expr, cst.Name):
            val = None
            for n, v, _ in assignments_in_scope(ec.scope):
                if n == expr.value:
                    val = v
            if val is None:
                return None
            expr = val
            continue
        return None
    return None


def forward_params(cls: ClassFacts) -> list[str]:
    r = cls.find_method("forward")
    if r is None:
        return []
    fn = r[1]
    ps = list(fn.params.posonly_params) + list(fn.params.params)
    return [p.name.value for p in ps[1:]] + [p.name.value for p in fn.params.kwonly_params]


def dynamic_dims(ctx) -> dict[str, set]:
    """Forward-parameter name -> declared dynamic dims, from this file's export calls.

    ``dynamic_shapes={"x": {0: batch}}`` / ``{"x": (batch, None)}`` and
    ``dynamic_axes={"input": {0: "batch"}}`` / ``{"input": [0]}`` (mapped through
    ``input_names`` to forward parameters when the exported class is in the file).
    """
    out: dict[str, set] = {}
    for ec in ctx.model.export_calls:
        cls = model_class_of(ctx, ec)
        params = forward_params(cls) if cls is not None else []
        ds = ec.kwarg("dynamic_shapes")
        if isinstance(ds, cst.Dict):
            add_shapes_dict(out, ds)
        da = ec.kwarg("dynamic_axes")
        if isinstance(da, cst.Dict):
            names = literal_value(ec.kwarg("input_names")) if ec.kwarg("input_names") is not None else MISSING
            for el in da.elements:
                if isinstance(el, cst.DictElement):
                    k = literal_value(el.key)
                    if not isinstance(k, str):
                        continue
                    dims = _dims_of(el.value)
                    out.setdefault(k, set()).update(dims)
                    if isinstance(names, (list, tuple)) and k in names and params:
                        i = list(names).index(k)
                        if i < len(params):
                            out.setdefault(params[i], set()).update(dims)
    return out


def add_shapes_dict(out: dict[str, set], ds: cst.Dict) -> None:
    """Add the dims of a ``dynamic_shapes={"x": {0: batch}}`` dict literal to ``out``
    (forward-parameter name -> dims)."""
    for el in ds.elements:
        if isinstance(el, cst.DictElement):
            k = literal_value(el.key)
            if isinstance(k, str):
                out.setdefault(k, set()).update(_dims_of(el.value))


def _static_spec(v: cst.BaseExpression) -> bool:
    """``None`` or ``Dim.STATIC`` as a ``dynamic_shapes`` entry: the dim stays static (torch 2.13,
    dict and tuple form alike; semantics.index.static_spec)."""
    return (isinstance(v, cst.Name) and v.value == "None") or (
        isinstance(v, cst.Attribute) and v.attr.value == "STATIC")


def _dims_of(v: cst.BaseExpression) -> set:
    dims: set = set()
    if isinstance(v, cst.Dict):
        for el in v.elements:
            if isinstance(el, cst.DictElement):
                k = literal_value(el.key)
                if isinstance(k, int) and not _static_spec(el.value):
                    dims.add(k)  # (a dynamic_axes name, or a Dim; {1: None} keeps dim 1 static)
    elif isinstance(v, (cst.List, cst.Tuple)):
        lit = literal_value(v)
        if isinstance(lit, (list, tuple)) and all(isinstance(x, int) for x in lit):
            dims.update(lit)  # dynamic_axes list form: the dims themselves
        else:
            for i, el in enumerate(v.elements):
                if isinstance(el, cst.Element) and not _static_spec(el.value):
                    dims.add(i)  # dynamic_shapes tuple form: entries other than None / Dim.STATIC are dynamic
    return dims


def declares_dynamic(ctx, reach: bool = True) -> Optional[bool]:
    """Whether the project exports with dynamic shapes.

    True / False from the ``dynamic-shapes`` config key when set; else from the project's
    export calls (``ctx.project_declares_dynamic``, when project analysis ran); else from
    this file: True when an export call declares a dynamic dim (``dynamic_shapes``,
    ``dynamic_axes``, ``dynamic=True``) or the file builds ``Dim``s, False when it has export
    calls and none does, None (unknown) when it has no export call. ``reach=False`` leaves out
    that a declared model reaches functions of this file (``dynamic_by_reach_only``).
    """
    cfg = getattr(getattr(ctx, "config", None), "dynamic_shapes", None)
    if cfg is not None:
        return bool(cfg)
    pdyn = getattr(ctx, "project_dynamic", None)
    if pdyn and any(any(isinstance(d, int) for dims in pdyn.get(c, {}).values() for d in dims)
                    for c in ctx.model.classes):
        return True  # a class of this file is exported (or declared, module-level) with dynamic dims
    if reach and _file_fn_dims(ctx):
        return True  # a declared model reaches functions of this file (semantics/dim_flow.py)
    proj = getattr(ctx, "project_declares_dynamic", None)
    if proj is not None:
        return bool(proj)
    if dynamic_dims(ctx):
        return True
    for ec in ctx.model.export_calls:
        for kw in ("dynamic_shapes", "dynamic_axes"):
            v = ec.kwarg(kw)
            if v is not None and literal_value(v) is not None:
                return True
        v = ec.kwarg("dynamic")
        if v is not None and literal_value(v) is True:
            return True
    if _builds_dims(ctx):
        return True
    return False if ctx.model.export_calls else None


def dynamic_by_reach_only(ctx) -> bool:
    """The file counts as exporting dynamic dims only because a declared model reaches functions
    of it (``declares_dynamic``): no config, export call or declaration of its own says so. A rule
    that reads any size as dynamic in such a file must then read the sizes the model carries
    there (``carried_dims``/``carried_sizes``), not any size: the helper may be handed an input
    the export declares static (bench/cases/pkg_usrnet_p2o_roll_fft: `p2o(k, ...)`, `k` static)."""
    return bool(_file_fn_dims(ctx)) and not declares_dynamic(ctx, reach=False)


def _file_fn_dims(ctx) -> dict:
    """This file's part of ``ctx.project_fn_dims`` (semantics/dim_flow.py): function qual ->
    name -> the declared dynamic dims carried there from a declared model."""
    fd = getattr(ctx, "project_fn_dims", None)
    if not fd:
        return {}
    import os

    return fd.get(os.path.abspath(ctx.path)) or {}


def _fn_qual(fn) -> str:
    name = fn.node.name.value
    return f"{fn.cls.name}.{name}" if fn.cls is not None else name


def param_names(fn) -> set[str]:
    """The names of ``fn``'s positional parameters (``self`` included)."""
    return {p.name.value for p in (*fn.node.params.posonly_params, *fn.node.params.params)}


def carried_dims(ctx, fn, multiples: bool = True) -> dict[str, set]:
    """Name -> the dims a declared model's export declares dynamic that reach ``fn`` (a block the
    model builds, a helper or inherited method it calls: semantics/dim_flow.py): a parameter's as
    the callers hand them, a local's as every binding of it keeps them. Empty when none does.
    ``multiples=False`` leaves out dims declared a multiple (``4 * Dim("b")``)."""
    rec = _file_fn_dims(ctx).get(_fn_qual(fn))
    if not rec:
        return {}
    out: dict[str, set] = {}
    for n, ds in rec.items():
        ints = {d for d in ds if isinstance(d, int) and (multiples or f"mult:{d}" not in ds)}
        if ints:
            out[n] = ints
    return out


def carried_record(ctx, fn) -> dict[str, set]:
    """Name -> everything ``semantics/dim_flow.py`` carries into ``fn`` for it (dims and markers:
    ``SIZE``, ``STATIC``, ``DOWN``, ``mult:d``); empty when nothing reaches ``fn``."""
    return _file_fn_dims(ctx).get(_fn_qual(fn)) or {}


def carried_sizes(ctx, fn) -> set:
    """Names of ``fn`` bound (every time) to a size equal to a declared dynamic dim of a declared
    model that reaches ``fn`` (``W`` of ``_, _, H, W = x.shape``, ``h`` handed ``x.shape[2]``)."""
    from exportlint.semantics.dim_flow import SIZE

    rec = _file_fn_dims(ctx).get(_fn_qual(fn))
    return {n for n, ds in rec.items() if SIZE in ds} if rec else set()


def carried_statics(ctx, fn) -> set:
    """Names of ``fn`` bound to a size of a tensor a declared model hands it from one of its own
    ``nn.Parameter``s (``n = pos_embed.shape[1]``), or arithmetic of such sizes: static whatever
    the export declares (semantics/dim_flow.py)."""
    from exportlint.semantics.dim_flow import STATIC

    rec = _file_fn_dims(ctx).get(_fn_qual(fn))
    return {n for n, ds in rec.items() if STATIC in ds} if rec else set()


def with_carried(ctx, fn, dyn: dict[str, set]) -> dict[str, set]:
    """``dyn`` (a function's declared dims) with ``carried_dims`` added; ``dyn`` itself when
    nothing is carried into ``fn``."""
    more = carried_dims(ctx, fn)
    if not more:
        return dyn
    out = {k: set(v) for k, v in dyn.items()}
    for n, ds in more.items():
        out.setdefault(n, set()).update(ds)
    return out


def _builds_dims(ctx) -> bool:
    for local, q in ctx.model.imports.names.items():
        if q in ("torch.export.Dim", "torch.export.dynamic_shapes.Dim", "torch.export.ShapesCollection"):
            return True
    return False


def _add_project_dims(ctx, cls_name: Optional[str], out: dict[str, set]) -> None:
    """Adds the dims the project's export calls declare for the exported class ``cls_name``
    (``ctx.project_dynamic``, when project analysis ran) to ``out``."""
    proj = getattr(ctx, "project_dynamic", None)
    if proj and cls_name and cls_name in proj:
        for p, dims in proj[cls_name].items():
            if p != REACH_KEY:
                out.setdefault(p, set()).update(d for d in dims if isinstance(d, int))


def declared_dims(ctx, cls_name: Optional[str]) -> dict[str, set]:
    """dynamic_dims of this file, plus the dims the project's export calls declare for the
    exported class ``cls_name`` (``ctx.project_dynamic``, when project analysis ran)."""
    out = {k: set(v) for k, v in dynamic_dims(ctx).items()}
    _add_project_dims(ctx, cls_name, out)
    return out


def all_declared_dims(ctx, cls_name: Optional[str]) -> dict[str, set]:
    """Forward-parameter -> every dim declared dynamic for the class ``cls_name``: those of
    ``declared_dims`` (dynamic_axes / dynamic_shapes of the file, the project's declarations)
    and those of ``export_dims`` (the file's torch.export ``dynamic_shapes``) together."""
    out = declared_dims(ctx, cls_name)
    for p, ds in export_dims(ctx, cls_name)[0].items():
        out.setdefault(p, set()).update(ds)
    return out


def export_dims(ctx, cls_name: Optional[str]) -> tuple[dict[str, set], bool]:
    """Forward-parameter -> dims declared dynamic for torch.export (``dynamic_shapes=`` of this
    file's torch.export calls, and the project's declarations for the class when known), and
    whether any ``Dim(...)`` of the file gives a ``min=`` (then the author bounded the dims)."""
    out: dict[str, set] = {}
    for ec in ctx.model.export_calls:
        if not set(call_exporters(ec)) & {"export-strict", "export-nonstrict"}:
            continue
        ds = ec.kwarg("dynamic_shapes")
        if isinstance(ds, cst.Name):
            for scope in (ec.scope, ctx.module):
                vals = [v for n, v, _ in assignments_in_scope(scope) if n == ds.value]
                if vals:
                    ds = vals[0] if len(vals) == 1 else None
                    break
        if isinstance(ds, cst.Dict):
            add_shapes_dict(out, ds)
        elif isinstance(ds, (cst.Tuple, cst.List)):
            # positional form: one entry per forward input
            cls = model_class_of(ctx, ec)
            params = forward_params(cls) if cls is not None else []
            for p, el in zip(params, ds.elements):
                if isinstance(el, cst.Element) and isinstance(el.value, (cst.Dict, cst.Tuple, cst.List)):
                    out.setdefault(p, set()).update(_dims_of(el.value))
    _add_project_dims(ctx, cls_name, out)
    bounded = False
    if out and "min" in ctx.text:
        for n in iter_nodes(ctx.module):
            if isinstance(n, cst.Call) and (ctx.model.imports.resolve(n.func) or dotted(n.func) or "").endswith("Dim"):
                if any(a.keyword is not None and a.keyword.value == "min" for a in n.args):
                    bounded = True
                    break
    return out, bounded


def torch_submodule_calls(ctx, modules: Collection[str]):
    """(function facts, call site, the constructor call, its qualified name) for every call of a
    ``self.<attr>`` on the export path whose ``__init__`` built it with one of ``modules``
    (``self.lstm(x)`` after ``self.lstm = nn.LSTM(...)``)."""
    for fn in ctx.model.functions:
        if fn.cls is None or fn.self_name is None:
            continue
        for call in fn.calls:
            f = call.node.func
            if call.receiver_kind != "self" or not isinstance(f, cst.Attribute):
                continue
            fact = fn.cls.find_attr(f.attr.value)
            if fact is None or not isinstance(fact.value, cst.Call):
                continue
            if fact.what == "submodule":
                q = ctx.model.imports.resolve(fact.value.func) or ""
                if q in modules:
                    yield fn, call, fact.value, q
            elif fact.what == "unknown":
                # `self.rnn = make_lstm(...)`: what a project helper returns (one construction)
                got = helper_ctor(ctx, fact.value, modules)
                if got is not None and got[1] in modules:
                    yield fn, call, got[0], got[1]


def _helper_name(ctx, call: cst.Call) -> Optional[str]:
    """The callee of ``call`` when it may be a project helper function: a dotted name, not a
    class (capitalised) nor torch's, as the file's imports resolve it."""
    if getattr(ctx, "project", None) is None or not isinstance(call.func, (cst.Name, cst.Attribute)):
        return None
    q = ctx.model.imports.resolve(call.func)
    if q is None:
        q = dotted(call.func)
        if not q or "." in q:
            return None  # `self._make_layer(...)`, `layers.act(...)` of a local: no module-level helper
    if q.startswith("torch.") or q.rsplit(".", 1)[-1][:1].isupper():
        return None
    return q  # (a bare name that is no module-level function of the file: not resolved, project.helper_returns)


def helper_ctor(ctx, call: cst.Call, modules: Collection[str]) -> Optional[tuple]:
    """(libcst constructor Call, its qualified name) of the one module construction, of one of
    ``modules``, that the project helper ``call`` calls returns
    (``semantics.project.helper_module_ctors``), else None."""
    # (once per file, call and module set: several rules ask of the same submodule calls)
    cache = ctx.__dict__.setdefault("_helper_ctors", {})
    key = (id(call), id(modules))
    if key in cache:
        return cache[key]
    got = None
    q = _helper_name(ctx, call)
    if q is not None:
        from exportlint.semantics.project import helper_module_ctors

        found = helper_module_ctors(ctx.project, ctx.path, q, ctx.project_calls()["deps"], modules)
        got = found[0] if len(found) == 1 else None
    cache[key] = got
    return got


def helper_built_mentions(ctx, *words: str) -> bool:
    """Some ``self.<attr> = helper(...)`` of the file's classes calls a project helper whose
    file's text holds one of ``words`` (the text gate of a rule that reads submodule
    constructors: the constructor may sit in the helper's file)."""
    if getattr(ctx, "project", None) is None:
        return False
    from exportlint.semantics.project import file_text, helper_file, index_of, may_define

    names = ctx.__dict__.get("_helper_names")
    if names is None:  # (once per file: the helpers its attributes are built by)
        names = ctx.__dict__["_helper_names"] = []
        for c in ctx.model.classes.values():
            for fact in c.attrs.values():
                if fact.what == "unknown" and isinstance(fact.value, cst.Call):
                    q = _helper_name(ctx, fact.value)
                    if q is not None and q not in names:
                        names.append(q)
    if not names:
        return False
    fi = index_of(ctx.project, ctx.path)
    for q in names:
        if "." in q and (fi is None or not may_define(ctx.project, ctx.project.absolute(fi, q), words)):
            continue  # (no file of the run that names the words can define it: not resolved)
        p = helper_file(ctx.project, ctx.path, q, ctx.project_calls()["deps"])
        text = file_text(ctx.project, p) if p is not None else None
        if text is not None and any(w in text for w in words):
            return True
    return False


def applies_without_symbolic(ctx):
    """(function facts, call, class) for each ``F.apply(...)`` of an autograd.Function of the
    file that defines no ``symbolic`` (EXL202 and EXL147 read these calls)."""
    for fn in ctx.model.functions:
        for call in fn.calls:
            q = call.qualname or ""
            if call.method != "apply" or not q.endswith(".apply"):
                continue
            c = ctx.model.classes.get(q[: -len(".apply")])
            if c is not None and c.is_autograd_function and c.find_method("symbolic") is None:
                yield fn, call, c
