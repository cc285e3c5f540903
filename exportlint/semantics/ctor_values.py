"""The constant a module attribute holds when every construction of its class sets it alike.

``self.use_checkpoint = use_checkpoint`` in ``__init__`` holds what the code that builds the
class passes: ``BasicLayer(dim, use_checkpoint=True)`` in another file, or the argument of the
builder's own ``__init__`` (``DenseBlock(..., memory_efficient=memory_efficient)``), followed up
to where a literal is written (``model = DenseNet(memory_efficient=True)``). Read with the stdlib
``ast`` from the files of the run (where a project builds its modules); libcst is not needed.

Precision first: the value is known only when the attribute is assigned once, unconditionally,
at the top of ``__init__`` from a parameter or a literal, when the class has at least one
construction site in the run, no subclass there, and every site (and every site of the builders
it forwards a parameter from) gives the same literal. Anything else (``**kwargs``, a config
object, a call, two different values, no site at all) is unknown.
"""

from __future__ import annotations

import ast
import os
from typing import Any, Optional

from exportlint.semantics.index import ast_dotted

#: "no known constant"
UNKNOWN = object()

_MAX_DEPTH = 4


def _state(project: Any) -> dict:
    """This module's per-run indexes (attribute writes, calls by name), kept for one run: a new
    set of run files (each run makes its own) starts them afresh. The texts and trees are the
    project's per-run ones (``project.file_text`` / ``file_tree``)."""
    st = project.__dict__.get("_ctor_state")
    if project.run_files is None:  # (no run: an editor's project; nothing kept)
        return {"files": None, "writes": {}, "file_writes": {}, "calls": {}}
    if st is None or st["files"] is not project.run_files:
        st = {"files": project.run_files, "writes": {}, "file_writes": {}, "calls": {}}
        project.__dict__["_ctor_state"] = st
    return st


def _text(project: Any, ap: str) -> Optional[str]:
    from exportlint.semantics.project import file_text

    return file_text(project, ap)


def _tree(project: Any, path: str, deps: Optional[set]) -> Optional[ast.Module]:
    from exportlint.semantics.project import file_tree

    tree = file_tree(project, path)
    if deps is not None and tree is not None:
        deps.add(os.path.abspath(path))
    return tree


def _mentions(project: Any, path: str, word: str) -> bool:
    """Does the file's text contain ``word`` (a cheap filter before parsing it)?"""
    text = _text(project, os.path.abspath(path))
    return text is not None and word in text


def _mention_count(project: Any, word: str) -> int:
    """How many of the run's .py files contain ``word``, counted once per word and run."""
    cache = _state(project).setdefault("mentions", {})
    n = cache.get(word)
    if n is None:
        n = cache[word] = sum(1 for p in project.run_files or () if p.endswith(".py") and _mentions(project, p, word))
    return n


def _class_node(tree: ast.Module, cls: str) -> Optional[ast.ClassDef]:
    for st in tree.body:
        if isinstance(st, ast.ClassDef) and st.name == cls:
            return st
    return None


def _init_of(node: ast.ClassDef) -> Optional[ast.FunctionDef]:
    for st in node.body:
        if isinstance(st, ast.FunctionDef) and st.name == "__init__":
            return st
    return None


def _params(fn: ast.FunctionDef) -> tuple[list[str], dict[str, Any], bool]:
    """(positional names after self, name -> default value or UNKNOWN, takes **kwargs/*args)."""
    a = fn.args
    pos = [p.arg for p in a.posonlyargs + a.args][1:]
    defaults: dict[str, Any] = {}
    for p, d in zip(reversed(a.posonlyargs + a.args), reversed(a.defaults)):
        defaults[p.arg] = _literal(d)
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        if d is not None:
            defaults[p.arg] = _literal(d)
    pos += [p.arg for p in a.kwonlyargs]
    return pos, defaults, a.vararg is not None or a.kwarg is not None


def _literal(e: Optional[ast.AST]) -> Any:
    if isinstance(e, ast.Constant) and isinstance(e.value, (bool, int, float, str, type(None))):
        return e.value
    return UNKNOWN


def _attr_source(init: ast.FunctionDef, attr: str) -> tuple[str, Any]:
    """How ``__init__`` sets ``self.<attr>``: ("param", name), ("const", value) or ("unknown", None).
    Only one assignment, a top-level statement of ``__init__``."""
    found: list = []
    for node in ast.walk(init):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for t in targets:
            if (isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                    and t.value.id == "self"):
                found.append(node)
    if len(found) != 1 or found[0] not in init.body or not isinstance(found[0], ast.Assign):
        return "unknown", None
    v = found[0].value
    if isinstance(v, ast.Name):
        return "param", v.id
    lit = _literal(v)
    if lit is not UNKNOWN:
        return "const", lit
    return "unknown", None


def attr_constant(project: Any, fi: Any, cls: str, attr: Any, deps: Optional[set] = None, _depth: int = 0) -> Any:
    """The literal ``self.<attr>`` holds in every instance of the project class ``cls`` (of the
    file index ``fi``) the run builds, or UNKNOWN. ``attr`` may be a path (``["config",
    "use_cache"]``: ``self.config.use_cache``, where ``self.config`` is an instance of a project
    class built at each construction site)."""
    path = [attr] if isinstance(attr, str) else list(attr)
    if project is None or fi is None or _depth > _MAX_DEPTH or not path:
        return UNKNOWN
    got = _init_attr(project, fi, cls, path, deps, False)
    if got is UNKNOWN or got[0] == "const":
        return got if got is UNKNOWN else got[1]
    return param_constant(project, fi, cls, got[1], got[2], deps, _depth, path[1:])


def option_off(project: Any, fi: Any, cls: str, attr: str, deps: Optional[set] = None) -> bool:
    """``self.<attr> = <p>`` at the top of ``__init__``, ``p`` a parameter whose default is the
    literal ``False``, and every construction of ``cls`` in the run leaves it False
    (``attr_constant``). The checks of this file come first: only such an attribute costs the
    scans of the run's other files (a bare ``self.<attr>`` test is common; a False-default
    option is not)."""
    if project is None or fi is None:
        return False
    tree = _tree(project, fi.path, deps)
    node = _class_node(tree, cls) if tree is not None else None
    init = _init_of(node) if node is not None else None
    if init is None:
        return False
    how, what = _attr_source(init, attr)
    if how != "param" or _params(init)[1].get(what, UNKNOWN) is not False:
        return False
    # a bound on the scans: a class or attribute name that many of the run's files mention
    # (transformers' `Attention`, `.bias`) would parse most of them for each file that tests it
    # (fsmt hit the 60 s file timeout): unknown, the arm stays on the export path
    for word in (cls, "." + attr):
        if _mention_count(project, word) > _OPTION_SCAN_CAP:
            return False
    return attr_constant(project, fi, cls, attr, deps) is False


#: ``option_off`` answers only when at most this many of the run's files mention the class (and
#: the attribute): otherwise the scans of ``attr_constant`` cost more than a file's analysis
_OPTION_SCAN_CAP = 24


def _init_attr(project: Any, fi: Any, cls: str, path: list, deps: Optional[set], sealed: bool) -> Any:
    """How the ``__init__`` of the project class ``cls`` (in ``fi``'s file) sets ``self.<path[0]>``:
    ``("const", literal)`` (only for a one-step ``path``), ``("param", init, parameter)``, or
    UNKNOWN (no ``__init__``, another statement of the run writes the attribute, any other
    value; with ``sealed``, also a subclass in the project)."""
    tree = _tree(project, fi.path, deps)
    node = _class_node(tree, cls) if tree is not None else None
    init = _init_of(node) if node is not None else None
    if init is None:
        return UNKNOWN
    how, what = _attr_source(init, path[0])
    if how not in ("const", "param"):
        return UNKNOWN  # (before the scans below, which read other files)
    if (sealed and _has_subclass(project, fi, cls)) or _written_elsewhere(project, path[0], init, deps):
        return UNKNOWN
    if how == "const":
        return ("const", what) if len(path) == 1 else UNKNOWN
    if how != "param":
        return UNKNOWN
    return ("param", init, what)


def _written_elsewhere(project: Any, attr: str, init: ast.FunctionDef, deps: Optional[set]) -> bool:
    """Some statement of the run's files other than a constructor's ``self.<attr> = ...`` assigns
    an attribute named ``attr`` (``self.grad_checkpointing = enable`` in a setter,
    ``module.use_checkpoint = True`` from outside, ``setattr(m, "attr", v)``): the value the
    constructor gave may not be the one forward sees."""
    cache = _state(project)["writes"]
    if attr not in cache:
        cache[attr] = any(attr in _attrs_written(project, path)
                          for path in sorted(project.run_files or ())
                          if path.endswith(".py") and _mentions(project, path, "." + attr))
    return cache[attr]


def _attrs_written(project: Any, path: str) -> frozenset:
    """The attribute names some statement of the file writes other than as a constructor's own
    ``self.<attr> = ...`` (assignment targets, ``setattr(x, "<literal>", v)``), one walk per
    file and run (``_written_elsewhere`` asks per attribute)."""
    per_file = _state(project)["file_writes"]
    ap = os.path.abspath(path)
    got = per_file.get(ap)
    if got is None:
        got = per_file[ap] = _attrs_written_in(_tree(project, path, None))
    return got


def _attrs_written_in(tree: Optional[ast.Module]) -> frozenset:
    if tree is None:
        return frozenset()
    out: set = set()
    # (a constructor setting its own instance's attribute, `self.<attr> = ...` in any class's
    # __init__, sets another object: the construction sites answer for it)
    inits = {id(n) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) and fn.name == "__init__"
             for n in ast.walk(fn)}
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else [])
        for t in targets:
            for x in ast.walk(t):
                if isinstance(x, ast.Attribute) and isinstance(x.ctx, ast.Store):
                    own = (id(node) in inits and isinstance(x.value, ast.Name) and x.value.id == "self"
                           and isinstance(node, ast.Assign))
                    if not own:
                        out.add(x.attr)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
                and len(node.args) >= 2):
            lit = _literal(node.args[1])
            if isinstance(lit, str):
                out.add(lit)
    return frozenset(out)


def param_constant(project: Any, fi: Any, cls: str, init: ast.FunctionDef, param: str, deps: Optional[set],
                   _depth: int, rest: Optional[list] = None) -> Any:
    """The literal every construction of ``cls`` in the run passes for ``__init__``'s ``param``
    (with ``rest``: the literal at that attribute path of the instance passed there)."""
    rest = list(rest or ())
    pos, defaults, _ = _params(init)
    if param not in pos:
        return UNKNOWN
    sites = _construction_sites(project, fi, cls, deps)
    if not sites:
        return UNKNOWN
    values = set()
    for site_fi, call, scope in sites:
        v = _bound_value(project, site_fi, call, scope, pos, defaults, param, deps, _depth, rest)
        if v is UNKNOWN:
            return UNKNOWN
        values.add((type(v), v))
        if len(values) > 1:
            return UNKNOWN
    return next(iter(values))[1]


def _bound_value(project: Any, site_fi: Any, call: ast.Call, scope: Any, pos: list[str], defaults: dict,
                 param: str, deps: Optional[set], depth: int, rest: Optional[list] = None) -> Any:
    rest = list(rest or ())
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return UNKNOWN
    expr = None
    for k in call.keywords:
        if k.arg == param:
            expr = k.value
    if expr is None:
        i = pos.index(param)
        if i < len(call.args):
            expr = call.args[i]
    if expr is None:
        return defaults.get(param, UNKNOWN) if not rest else UNKNOWN
    return _value_of(project, site_fi, expr, scope, deps, depth, rest)


def _value_of(project: Any, site_fi: Any, expr: ast.AST, scope: Any, deps: Optional[set], depth: int,
              rest: list) -> Any:
    """The literal at attribute path ``rest`` of the value ``expr`` (read in ``site_fi``, inside
    ``scope``: the (ClassDef, __init__) it sits in, or None) evaluates to, or UNKNOWN."""
    if depth > _MAX_DEPTH:
        return UNKNOWN
    lit = _literal(expr)
    if lit is not UNKNOWN:
        return lit if not rest else UNKNOWN
    # a parameter of the builder's own __init__, forwarded
    if isinstance(expr, ast.Name) and scope is not None:
        cls_node, init = scope
        bpos, _, _ = _params(init)
        if expr.id in bpos and not _rebound(init, expr.id):
            return param_constant(project, site_fi, cls_node.name, init, expr.id, deps, depth + 1, rest)
    # an instance of a project class built here: `Encoder(Config(use_cache=True))`
    if isinstance(expr, ast.Call) and rest:
        d = ast_dotted(expr.func)
        hit = _class_named(project, site_fi, d) if d else None
        if hit is None:
            return UNKNOWN
        cfi, cname = hit
        got = _init_attr(project, cfi, cname, rest, deps, True)
        if got is UNKNOWN or got[0] == "const":
            return got if got is UNKNOWN else got[1]
        _, init, what = got
        cpos, cdefaults, _ = _params(init)
        if what not in cpos:
            return UNKNOWN
        return _bound_value(project, site_fi, expr, scope, cpos, cdefaults, what, deps, depth + 1, rest[1:])
    return UNKNOWN


def _has_subclass(project: Any, fi: Any, cls: str) -> bool:
    for path in sorted(project.run_files or ()):
        if not path.endswith(".py") or not _mentions(project, path, cls):
            continue
        sfi = project.index_path(path)
        if sfi is None:
            continue
        for ci in sfi.classes.values():
            for b in ci.bases:
                hit = project.base_class(sfi, b, None)
                if hit is not None and hit[0].path == fi.path and hit[1] == cls:
                    return True
    return False


def _rebound(fn: ast.FunctionDef, name: str) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
    return False


def _construction_sites(project: Any, fi: Any, cls: str, deps: Optional[set]) -> list:
    """[(file index, Call, (ClassDef, __init__) enclosing it or None)] of the calls of ``cls`` in
    the run's files; [] when a subclass of ``cls`` exists there or the run's files are unknown
    (its instances may then be built with other values)."""
    files = sorted(project.run_files or ())
    if not files:
        return []
    out = []
    for path in files:
        if not path.endswith(".py"):
            continue
        if not _mentions(project, path, cls):
            continue
        tree = _tree(project, path, None)
        if tree is None:
            continue
        sfi = project.index_path(path)
        if sfi is None:
            continue
        if deps is not None:
            deps.add(os.path.abspath(path))
        for cname, ci in sfi.classes.items():
            for b in ci.bases:
                hit = project.base_class(sfi, b, None)
                if hit is not None and hit[0].path == fi.path and hit[1] == cls:
                    return []
        for call, scope, d in _calls_named(project, path, tree).get(cls, ()):
            hit = _class_named(project, sfi, d)
            if hit is not None and hit[0].path == fi.path and hit[1] == cls:
                out.append((sfi, call, scope))
    return out


def _class_named(project: Any, sfi: Any, dotted: str) -> Optional[tuple]:
    """The project class (file index, name) a dotted name read in ``sfi`` refers to."""
    head, _, rest = dotted.partition(".")
    if not rest and head in sfi.classes:
        return sfi, head
    q = sfi.imports.get(head)
    if q is None:
        return None
    return project.resolve_class(project.absolute(sfi, f"{q}.{rest}" if rest else q), None)


def _calls_named(project: Any, path: str, tree: ast.Module) -> dict:
    """{last part of the called dotted name: [(Call, scope, dotted name)]} of the file, in the
    order of ``_calls_with_scope``: one walk per file and run (``_construction_sites`` asks per
    class)."""
    per_file = _state(project)["calls"]
    ap = os.path.abspath(path)
    got = per_file.get(ap)
    if got is None or got[0] is not tree:
        by: dict = {}
        for call, scope in _calls_with_scope(tree):
            d = ast_dotted(call.func)
            if d is not None:
                by.setdefault(d.rsplit(".", 1)[-1], []).append((call, scope, d))
        got = per_file[ap] = (tree, by)
    return got[1]


def _calls_with_scope(tree: ast.Module):
    """Every Call of the module, with the (ClassDef, __init__) it sits in (None elsewhere)."""
    def walk(node, scope):
        for child in ast.iter_child_nodes(node):
            s = scope
            if isinstance(child, ast.ClassDef):
                init = _init_of(child)
                for st in child.body:
                    if st is init:
                        yield from walk(st, (child, init))
                    else:
                        yield from walk(st, None)
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and scope is not None:
                s = None  # a nested function: its names are not __init__'s parameters
            if isinstance(child, ast.Call):
                yield child, s
            yield from walk(child, s)

    yield from walk(tree, None)


__all__ = ["UNKNOWN", "attr_constant", "param_constant"]
