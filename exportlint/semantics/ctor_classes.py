"""The classes a module's constructor parameter is given, read from the constructions in the run.

``self.tree1 = block(in_ch, out_ch, stride)`` in ``__init__`` builds whatever class the code that
constructs the module passes for ``block``: ``DlaTree(levels, DlaBasic, ...)``,
``Attention(dim, rel_pos_cls=partial(RelPosBias, window_size=ws))``, the parameter's default
(``block=Bottleneck``), or the builder's own parameter handed on (``DlaTree(..., block, ...)``
inside another class's ``__init__``: followed to that class's constructions, any number of
levels). The index records such an attribute as ``"@Class.param"`` (``semantics/index.py``);
``param_classes`` answers which project classes it may be.

Precision first (unknown stays unknown): the answer is None unless the class has at least one
construction site in the run's files, no subclass there, and every site's value for the
parameter resolves to project classes: a class name (through the imports), ``partial(Cls,
...)``, ``None`` (no module), either arm of ``a if c else b`` / ``a or b``, a local name of the
enclosing ``__init__`` or function (all its assignments), a same-file or imported function's
returns, a parameter of the enclosing ``__init__`` (that class's constructions). A class handed
around as a value (``build_model_with_cfg(DLA, ...)``), ``**kwargs`` that may carry the
parameter, a torch or other installed class, a parameter of a plain function: unknown. When the
sites give several classes, all are returned: a caller that needs one class (the call graph)
treats several as unknown; a rule may report only what holds for each.

Reads the stdlib ``ast`` of the files of the run (``ctor_values``' per-run scans), no libcst.
"""

from __future__ import annotations

import ast
import os
from typing import Any, Optional

from exportlint.semantics import ctor_values as cv
from exportlint.semantics.index import ast_dotted

_MAX_DEPTH = 6
#: the class's constructions are read only when at most this many of the run's files mention it
_SCAN_CAP = 24
_PARTIAL = ("partial", "functools.partial")


def _memo(project: Any) -> dict:
    st = cv.state(project)
    return st.setdefault("param_classes", {})


def param_classes(project: Any, fi: Any, cls: str, param: str, deps: Optional[set] = None,
                  _depth: int = 0, _active: Optional[set] = None) -> Optional[list]:
    """[(FileIndex, class name)] of the project classes the constructions of ``cls`` (a class of
    ``fi``) in the run pass for ``__init__``'s ``param``, distinct, in the order found; None when
    any is unknown (see the module doc). ``[]``: every site passes ``None``."""
    key = (fi.path, cls, param)
    memo = _memo(project) if project.run_files is not None else {}
    hit = memo.get(key)
    if hit is not None:
        if deps is not None:
            deps.update(hit[1])
        return hit[0]
    active = set() if _active is None else _active
    if key in active:
        return []  # handed on to itself (a recursive tree): adds no class
    if _depth > _MAX_DEPTH:
        return None
    active.add(key)
    read: set = set()
    try:
        got = _param_classes(project, fi, cls, param, read, _depth, active)
    finally:
        active.discard(key)
    if deps is not None:
        deps.update(read)
    if _active is None:  # (an inner answer cut at a cycle is partial: only the outermost is kept)
        memo[key] = (got, frozenset(read))
    return got


def _param_classes(project: Any, fi: Any, cls: str, param: str, deps: set, depth: int,
                   active: set) -> Optional[list]:
    node = cv.own_class(project, fi, cls, deps)
    init = cv.init_of(node) if node is not None else None
    if init is None or cv.rebound(init, param):
        return None
    a = init.args
    pos = [p.arg for p in a.posonlyargs + a.args][1:]
    kwonly = [p.arg for p in a.kwonlyargs]
    if param not in pos and param not in kwonly:
        return None
    if cv.mention_count(project, cls, _SCAN_CAP) > _SCAN_CAP:
        return None  # built all over the run (a shared layer): reading every site costs more than the answer
    default = None
    for p, d in zip(reversed(a.posonlyargs + a.args), reversed(a.defaults)):
        if p.arg == param:
            default = d
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        if p.arg == param and d is not None:
            default = d
    out: list = []
    sites = 0
    for site in cv.construction_sites(project, fi, cls, deps):
        if site is cv.SUBCLASS:
            return None  # a subclass may hand its own class to super().__init__
        site_fi, call, scope = site
        expr = cv.bound_arg(call, pos, param)
        if expr is cv.UNKNOWN:
            return None
        if expr is None:
            if default is None:
                return None
            got = _classes_of(project, fi, default, None, None, deps, depth, active)
        else:
            got = _classes_of(project, site_fi, expr, scope[1] if scope else None, scope[0] if scope else None,
                              deps, depth, active)
        if got is None:
            return None
        _merge(out, got)
        sites += 1
    return out if sites else None


def _merge(out: list, got: list) -> None:
    for rc in got:
        if all(rc[0].path != o[0].path or rc[1] != o[1] for o in out):
            out.append(rc)


def _params_of(fn: ast.AST) -> list:
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg is not None:
        names.append(a.vararg.arg)
    if a.kwarg is not None:
        names.append(a.kwarg.arg)
    return names


def _own_nodes(fn: ast.AST):
    """The nodes of ``fn``'s body, not those of functions, lambdas or classes nested in it."""
    todo = list(fn.body)
    while todo:
        n = todo.pop()
        yield n
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                todo.append(c)


#: id(function node) -> (the node, {name: [values of its plain assignments] or None}); the
#: node is kept so its id is not reused while the entry lives
_BINDINGS: dict = {}


def _assigned(fn: ast.AST, name: str) -> Optional[list]:
    """The values ``fn`` assigns to the local ``name`` (plain ``name = value`` statements); None
    when another statement binds it (a loop, ``with``, augmented or tuple assignment, ...)."""
    got = _BINDINGS.get(id(fn))
    if got is None or got[0] is not fn:
        by: dict = {}
        plain: set = set()
        for n in _own_nodes(fn):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                t = n.targets[0]
                plain.add(id(t))
                if by.get(t.id, []) is not None:
                    by.setdefault(t.id, []).append(n.value)
        for n in _own_nodes(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and id(n) not in plain:
                by[n.id] = None  # bound otherwise: unknown
        if len(_BINDINGS) > 4096:
            _BINDINGS.clear()
        got = _BINDINGS[id(fn)] = (fn, by)
    return got[1].get(name, [])


def _classes_of(project: Any, sfi: Any, e: ast.AST, fn: Optional[ast.AST], cls_node: Optional[ast.ClassDef],
                deps: set, depth: int, active: set) -> Optional[list]:
    """The project classes ``e`` (read in ``sfi``, inside the function ``fn``: the ``__init__`` of
    ``cls_node`` when given) may evaluate to; None when unknown."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(e, ast.Constant) and e.value is None:
        return []
    if isinstance(e, ast.IfExp):
        a = _classes_of(project, sfi, e.body, fn, cls_node, deps, depth + 1, active)
        b = _classes_of(project, sfi, e.orelse, fn, cls_node, deps, depth + 1, active) if a is not None else None
        return None if b is None else a + [x for x in b if x not in a]
    if isinstance(e, ast.BoolOp) and isinstance(e.op, ast.Or):
        out: list = []
        for v in e.values:
            got = _classes_of(project, sfi, v, fn, cls_node, deps, depth + 1, active)
            if got is None:
                return None
            _merge(out, got)
        return out
    if isinstance(e, ast.Call):
        d = ast_dotted(e.func)
        if d is None:
            return None
        if _qualified(sfi, d) in _PARTIAL or d in _PARTIAL:
            return _classes_of(project, sfi, e.args[0], fn, cls_node, deps, depth + 1, active) if e.args else None
        return _returns_of(project, sfi, d, deps, depth + 1, active)
    if isinstance(e, ast.Name) and fn is not None:
        if e.id in _params_of(fn):
            if cls_node is not None and getattr(fn, "name", None) == "__init__" and not cv.rebound(fn, e.id):
                return param_classes(project, sfi, cls_node.name, e.id, deps, depth + 1, active)
            return None
        vals = _assigned(fn, e.id)
        if vals is None:
            return None
        if vals:
            out = []
            for v in vals:
                got = _classes_of(project, sfi, v, fn, cls_node, deps, depth + 1, active)
                if got is None:
                    return None
                _merge(out, got)
            return out
    if isinstance(e, (ast.Name, ast.Attribute)):
        d = ast_dotted(e)
        hit = cv.class_named(project, sfi, d) if d else None
        return [hit] if hit is not None else None
    return None


def _qualified(sfi: Any, d: str) -> str:
    head, _, rest = d.partition(".")
    q = sfi.imports.get(head)
    if q is None:
        return d
    return f"{q}.{rest}" if rest else q


def _returns_of(project: Any, sfi: Any, d: str, deps: set, depth: int, active: set) -> Optional[list]:
    """The classes a project function named ``d`` in ``sfi`` returns (every ``return``)."""
    from exportlint.semantics.project import top_level_ast

    if "." not in d and d in sfi.functions:
        tfi, name = sfi, d
    else:
        q = _qualified(sfi, d)
        if q == d and "." not in d:
            return None
        t = project.resolve_function(project.absolute(sfi, q), deps)
        if t is None or t.is_method:
            return None
        tfi = project.index_path(t.path)
        name = t.qual
        if tfi is None:
            return None
    node = top_level_ast(project, tfi.path, name)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    deps.add(os.path.abspath(tfi.path))
    out: list = []
    seen = False
    for n in _own_nodes(node):
        if isinstance(n, ast.Return):
            seen = True
            if n.value is None:
                continue
            got = _classes_of(project, tfi, n.value, node, None, deps, depth + 1, active)
            if got is None:
                return None
            _merge(out, got)
    return out if seen else None


__all__ = ["param_classes"]
