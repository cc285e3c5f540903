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
import bisect
import os
import re
from typing import Any, Optional

from exportlint.semantics.index import ast_dotted

#: "no known constant"
UNKNOWN = object()

_MAX_DEPTH = 4


def state(project: Any) -> dict:
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


def mention_count(project: Any, word: str, cap: int) -> int:
    """How many of the run's .py files contain ``word`` (found once per word and run), or
    ``cap + 1`` when more than ``cap`` do: the count stops there."""
    st = state(project)
    got = st.setdefault("mentions", {}).get(word)
    if got is not None:
        return min(len(got), cap + 1)
    over = st.setdefault("mentions_over", {})
    if over.get(word, -1) == cap:
        return cap + 1
    n = 0
    found = []
    for pt in _py_texts(project):
        if word in pt[1]:
            n += 1
            if n > cap:
                over[word] = cap
                return n
            found.append(pt)
    st["mentions"][word] = found
    return n


def _mentioning(project: Any, word: str) -> list:
    """[(path, text)] of the run's .py files that contain ``word``, in the order of their
    paths, found once per word and run."""
    cache = state(project).setdefault("mentions", {})
    got = cache.get(word)
    if got is None:
        got = cache[word] = [pt for pt in _py_texts(project) if word in pt[1]]
    return got


def files_mentioning(project: Any, word: str) -> list:
    """[(path, text)] of the run's .py files whose text contains ``word`` (once per word and run;
    the run's texts are read once, as for the other scans of this module)."""
    return _mentioning(project, word)


def _py_texts(project: Any) -> list:
    """[(path, text)] of the run's readable .py files, in the order of their paths, once per run."""
    st = state(project)
    got = st.get("py_texts")
    if got is None:
        got = []
        for p in sorted(project.run_files or ()):
            if p.endswith(".py"):
                t = _text(project, os.path.abspath(p))
                if t is not None:
                    got.append((p, t))
        if project.run_files is not None:
            st["py_texts"] = got
    return got


def _class_node(tree: ast.Module, cls: str) -> Optional[ast.ClassDef]:
    for st in tree.body:
        if isinstance(st, ast.ClassDef) and st.name == cls:
            return st
    return None


def init_of(node: ast.ClassDef) -> Optional[ast.FunctionDef]:
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


def attr_source(init: ast.FunctionDef, attr: str) -> tuple[str, Any]:
    """How ``__init__`` sets ``self.<attr>``: ("param", name), ("const", value) or ("unknown", None).
    Only one assignment, a top-level statement of ``__init__``."""
    found = _self_writes(init).get(attr, ())
    if len(found) != 1 or found[0] not in init.body or not isinstance(found[0], ast.Assign):
        return "unknown", None
    v = found[0].value
    if isinstance(v, ast.Name):
        return "param", v.id
    lit = _literal(v)
    if lit is not UNKNOWN:
        return "const", lit
    return "unknown", None


def _statements(body: list):
    """Every statement of ``body`` and of the statement lists nested in it (compound statements,
    functions, classes, handlers, match cases), in source order."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody"):
            sub = getattr(node, field, None)
            if isinstance(sub, list):
                yield from _statements(sub)
        for h in getattr(node, "handlers", None) or ():
            yield from _statements(h.body)
        for c in getattr(node, "cases", None) or ():
            yield from _statements(c.body)


#: id(__init__ node) -> (the node, {attr: the statements that assign ``self.<attr>``}); the
#: node is kept so its id is not reused while the entry lives
_SELF_WRITES: dict = {}


def _self_writes(init: ast.FunctionDef) -> dict:
    """{attr: [Assign / AnnAssign / AugAssign statements anywhere in ``init`` (nested functions
    and classes too) with a target ``self.<attr>``]}: one walk of the statements per
    ``__init__`` node (assignments are statements: no expression needs a visit)."""
    got = _SELF_WRITES.get(id(init))
    if got is not None and got[0] is init:
        return got[1]
    by: dict = {}
    for node in _statements(init.body):
        targets = ()
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = (node.target,)
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                by.setdefault(t.attr, []).append(node)
    if len(_SELF_WRITES) > 4096:
        _SELF_WRITES.clear()
    _SELF_WRITES[id(init)] = (init, by)
    return by


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
    option is not). Of those scans, the construction sites come before the writes elsewhere:
    both must agree, and most candidates have no site that passes a literal (timm's
    ``grad_checkpointing``, ``fused_attn``), which ends the question sooner."""
    if project is None or fi is None:
        return False
    # (the text first: such an option is written `self.<attr> = <name>` with a `False` default)
    text = _text(project, os.path.abspath(fi.path))
    if text is None or "False" not in text or not any(
            _false_default(m.group(1)).search(text) for m in _param_write(attr).finditer(text)):
        return False
    node = own_class(project, fi, cls, deps)
    init = init_of(node) if node is not None else None
    if init is None:
        return False
    how, what = attr_source(init, attr)
    if how != "param" or _params(init)[1].get(what, UNKNOWN) is not False:
        return False
    # a bound on the scans: a class or attribute name that many of the run's files mention
    # (transformers' `Attention`, `.bias`) would parse most of them for each file that tests it
    # (fsmt hit the 60 s file timeout): unknown, the arm stays on the export path
    for word in (cls, "." + attr):
        if mention_count(project, word, _OPTION_SCAN_CAP) > _OPTION_SCAN_CAP:
            return False
    # = attr_constant(...) is False, its two conditions in the other order
    if param_constant(project, fi, cls, init, what, deps, 0, []) is not False:
        return False
    return not _written_elsewhere(project, attr, init, deps)


def _param_write(attr: str) -> Any:
    """A pattern (group 1: the name) every line of ``self.<attr> = <name>`` matches (the name
    maybe in parentheses; not ``True``/``False``/``None``, which are literals), and more
    (``myself.<attr> = x``): it starts with a literal, which ``re`` finds fast."""
    pat = _PARAM_WRITES.get(attr)
    if pat is None:
        if len(_PARAM_WRITES) > 4096:
            _PARAM_WRITES.clear()
        pat = _PARAM_WRITES[attr] = re.compile(
            r"self\s*\.\s*" + re.escape(attr) + r"\s*=[\s(\\]*(?!(?:True|False|None)\b)((?!\d)\w+)[\s)\\]*(?:[;#]|$)",
            re.M)
    return pat


_PARAM_WRITES: dict = {}


def _false_default(name: str) -> Any:
    """A pattern a parameter ``name`` with the default ``False`` matches in a signature
    (``name=False``, ``name: bool = False``), and more."""
    key = ("default", name)
    pat = _PARAM_WRITES.get(key)
    if pat is None:
        pat = _PARAM_WRITES[key] = re.compile(re.escape(name) + r"\s*(?::[^=]*)?=[\s(\\]*False\b")
    return pat


def own_class(project: Any, fi: Any, cls: str, deps: Optional[set]) -> Optional[ast.ClassDef]:
    """The top-level class ``cls`` of the file of ``fi``: from the run's tree of that file when
    one is parsed already, else from the class's own lines (``project.top_level_ast``): the file
    being linted was parsed by its syntax check, and a second parse of all of it for one class
    costs more than the question."""
    from exportlint.semantics.project import has_file_tree, top_level_ast

    ap = os.path.abspath(fi.path)
    if has_file_tree(project, ap) is not False:
        tree = _tree(project, fi.path, deps)
        return _class_node(tree, cls) if tree is not None else None
    if deps is not None:
        deps.add(ap)
    node = top_level_ast(project, ap, cls)
    return node if isinstance(node, ast.ClassDef) else None


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
    init = init_of(node) if node is not None else None
    if init is None:
        return UNKNOWN
    how, what = attr_source(init, path[0])
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
    cache = state(project)["writes"]
    if attr not in cache:
        word = "." + attr
        cache[attr] = any(attr in _attrs_written(project, path) for path, _ in _mentioning(project, word))
    return cache[attr]


def _attrs_written(project: Any, path: str) -> frozenset:
    """The attribute names some statement of the file writes other than as a constructor's own
    ``self.<attr> = ...`` (assignment targets, ``setattr(x, "<literal>", v)``), one walk per
    file and run (``_written_elsewhere`` asks per attribute)."""
    per_file = state(project)["file_writes"]
    ap = os.path.abspath(path)
    got = per_file.get(ap)
    if got is None:
        text = _text(project, ap)
        got = per_file[ap] = _attrs_written_in(_tree(project, path, None), text is None or "setattr" in text)
    return got


def _attrs_written_in(tree: Optional[ast.Module], calls: bool = True) -> frozenset:
    """(``calls``: look for ``setattr`` calls too; their name is not in the file's text
    otherwise.) Assignments are statements: only the statement lists are walked for them, and
    a target's own nodes."""
    if tree is None:
        return frozenset()
    out: set = set()

    # (a constructor setting its own instance's attribute, `self.<attr> = ...` in any class's
    # __init__ (or a function nested in one), sets another object: the construction sites
    # answer for it)
    def block(body: list, in_init: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                block(node.body, in_init or (isinstance(node, ast.FunctionDef) and node.name == "__init__"))
                continue
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else ())
            for t in targets:
                for x in ast.walk(t):
                    if isinstance(x, ast.Attribute) and isinstance(x.ctx, ast.Store):
                        own = (in_init and isinstance(x.value, ast.Name) and x.value.id == "self"
                               and isinstance(node, ast.Assign))
                        if not own:
                            out.add(x.attr)
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(node, field, None)
                if isinstance(sub, list):
                    block(sub, in_init)
            for h in getattr(node, "handlers", None) or ():
                block(h.body, in_init)
            for c in getattr(node, "cases", None) or ():
                block(c.body, in_init)

    block(tree.body, False)
    if calls:
        for node in ast.walk(tree):
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
    # the sites come file by file: the first that is unknown (or a subclass) ends the question
    # before the run's other files are parsed
    values = set()
    for site in construction_sites(project, fi, cls, deps):
        if site is SUBCLASS:
            return UNKNOWN
        site_fi, call, scope = site
        v = _bound_value(project, site_fi, call, scope, pos, defaults, param, deps, _depth, rest)
        if v is UNKNOWN:
            return UNKNOWN
        values.add((type(v), v))
        if len(values) > 1:
            return UNKNOWN
    if not values:
        return UNKNOWN  # no site in the run
    return next(iter(values))[1]


def _bound_value(project: Any, site_fi: Any, call: ast.Call, scope: Any, pos: list[str], defaults: dict,
                 param: str, deps: Optional[set], depth: int, rest: Optional[list] = None) -> Any:
    rest = list(rest or ())
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return UNKNOWN
    expr = bound_arg(call, pos, param)
    if expr is None:
        return defaults.get(param, UNKNOWN) if not rest else UNKNOWN
    return _value_of(project, site_fi, expr, scope, deps, depth, rest)


def bound_arg(call: ast.Call, pos: list[str], param: str) -> Any:
    """The argument expression ``call`` passes for ``param`` (``pos``: the positional parameter
    names after ``self``); None when the call leaves it to its default; ``UNKNOWN`` when a
    ``*args`` / ``**kwargs`` may carry it."""
    for k in call.keywords:
        if k.arg == param:
            return k.value
    if param in pos:
        i = pos.index(param)
        for j, e in enumerate(call.args):
            if isinstance(e, ast.Starred):
                return UNKNOWN
            if j == i:
                return e
    if any(k.arg is None for k in call.keywords) or any(isinstance(e, ast.Starred) for e in call.args):
        return UNKNOWN
    return None


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
        if expr.id in bpos and not rebound(init, expr.id):
            return param_constant(project, site_fi, cls_node.name, init, expr.id, deps, depth + 1, rest)
    # an instance of a project class built here: `Encoder(Config(use_cache=True))`
    if isinstance(expr, ast.Call) and rest:
        d = ast_dotted(expr.func)
        hit = class_named(project, site_fi, d) if d else None
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


def rebound(fn: ast.FunctionDef, name: str) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
    return False


#: what ``construction_sites`` yields for a subclass of the class in the run's files: its
#: instances may then be built with other values
SUBCLASS = object()


def construction_sites(project: Any, fi: Any, cls: str, deps: Optional[set]):
    """Yields (file index, Call, (ClassDef, __init__) enclosing it or None) for the calls of
    ``cls`` in the run's files, file by file in the order of their paths, and ``SUBCLASS`` where
    a file has a subclass of ``cls``; nothing when the run's files are unknown. A file is parsed
    only when its text can hold such a call: the class's name then ``(`` (after blanks or a
    closing paren), bare where the bare name is this class there, else after a dot."""
    for path, text in _mentioning(project, cls):
        sfi = project.index_path(path)
        if sfi is None:
            continue
        if deps is not None:
            deps.add(os.path.abspath(path))
        for cname, ci in sfi.classes.items():
            for b in ci.bases:
                hit = project.base_class(sfi, b, None)
                if hit is not None and hit[0].path == fi.path and hit[1] == cls:
                    yield SUBCLASS
                    return
        # (a file that names the class only in an import, an annotation or a base, or calls
        # another class of that name, is not parsed)
        calls = _call_marks(text, cls)
        if not calls:
            continue
        bare = class_named(project, sfi, cls)
        if not (bare is not None and bare[0].path == fi.path and bare[1] == cls) and not any(d for _, d in calls):
            continue
        for call, scope, d in _calls_named(project, path, sfi, cls, sorted({ln for ln, _ in calls})):
            hit = class_named(project, sfi, d)
            if hit is not None and hit[0].path == fi.path and hit[1] == cls:
                yield sfi, call, scope


def _call_marks(text: str, name: str) -> list:
    """[(line, after a dot)] of each place in ``text`` where ``name`` is followed by ``(`` (after
    blanks, line continuations or closing parens) and not by another identifier character:
    every call whose called dotted name ends in ``name`` is one (and more: ``MyBlock(``, a
    ``class Block(`` header, a string)."""
    out = []
    i = text.find(name)
    n = len(text)
    while i >= 0:
        j = i + len(name)
        if j < n and not (text[j].isalnum() or text[j] == "_"):
            while j < n and text[j] in " \t\r\n\f\v\\)":
                j += 1
            if j < n and text[j] == "(":
                k = i - 1
                while k >= 0 and text[k] in " \t\r\n\f\v":
                    k -= 1
                out.append((text.count("\n", 0, i) + 1, k >= 0 and text[k] == "."))
        i = text.find(name, i + 1)
    return out


def class_named(project: Any, sfi: Any, dotted: str) -> Optional[tuple]:
    """The project class (file index, name) a dotted name read in ``sfi`` refers to."""
    head, _, rest = dotted.partition(".")
    if not rest and head in sfi.classes:
        return sfi, head
    q = sfi.imports.get(head)
    if q is None:
        return None
    return project.resolve_class(project.absolute(sfi, f"{q}.{rest}" if rest else q), None)


def _calls_named(project: Any, path: str, sfi: Any, cls: str, lines: list) -> list:
    """[(Call, scope, dotted name)] of the file's calls whose called dotted name ends in ``cls``,
    in the order of ``_calls_with_scope``, once per file, class and run
    (``construction_sites``). ``lines``: the sorted lines where such a call can start
    (``_call_marks``); only the nodes whose lines hold one are walked, and where the file's
    outline places each such line in one top-level class, function or assignment, only those
    are parsed (``project.top_level_ast``), else the whole file."""
    per_file = state(project)["calls"]
    ap = os.path.abspath(path)
    got = per_file.get((ap, cls))
    if got is None:
        picked = _top_level_of(project, ap, sfi, lines)
        if picked is None:
            tree = _tree(project, path, None)
            picked = [(node, None) for node in (tree.body if tree is not None else ())]
        got = per_file[(ap, cls)] = []
        for node, first in picked:
            # (lines of a statement parsed alone count from its first line; `top_level_ast`
            # may have given the whole tree's node instead)
            shift = 0 if first is None else first - min(
                [node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
            rel = [ln - shift for ln in lines] if shift else lines
            for call, scope in _calls_with_scope(ast.Module(body=[node], type_ignores=[]), rel):
                d = ast_dotted(call.func)
                if d is not None and d.rsplit(".", 1)[-1] == cls:
                    got.append((call, scope, d))
    return got


def _top_level_of(project: Any, ap: str, sfi: Any, lines: list) -> Optional[list]:
    """[(statement, its first line)] of the top-level statements of the file holding ``lines``,
    each parsed alone from its span in the file's outline (the spans ``project.top_level_ast``
    parses), in source order; None
    when a line lies outside the outline's classes, functions and assignments, the file's tree
    is parsed already, or a name is bound twice."""
    from exportlint.semantics.project import has_file_tree, top_level_ast

    o = getattr(sfi, "outline", None)
    if o is None or has_file_tree(project, ap) is not False:
        return None
    spans: list = []
    for f in o.funcs:
        if not f.is_method:
            spans.append((f.start, f.end, f.name))
    for name, entry in o.classes.items():
        ls = [x for m in entry[0] for x in (m.start, m.end)] + [x for a, b in entry[1] for x in (a, b)]
        if len(entry) > 2 and entry[2]:
            ls += list(entry[2])
        if ls:
            spans.append((min(ls), max(ls), name))
    for names, a, b in o.assigns:
        spans += [(a, b, n) for n in names]
    names = [n for _, _, n in spans]
    if len(set(names)) != len(names) or getattr(o, "dup_classes", None):
        return None
    need: dict = {}
    for ln in lines:
        hold = [(a, n) for a, b, n in spans if a <= ln <= b]
        if len(hold) != 1:
            return None
        need[hold[0][1]] = hold[0][0]
    out = []
    for name in sorted(need, key=need.get):
        node = top_level_ast(project, ap, name)
        if node is None:
            return None
        out.append((node, need[name]))
    return out


def _calls_with_scope(tree: ast.Module, lines: Optional[list] = None):
    """Every Call of the module, with the (ClassDef, __init__) it sits in (None elsewhere). With
    ``lines`` (sorted), only the Calls whose lines hold one of them: a node whose lines hold none
    is not entered (a call's lines hold those of the calls in it)."""
    def holds(node) -> bool:
        lo = getattr(node, "lineno", None)
        if lines is None or lo is None:
            return True
        hi = getattr(node, "end_lineno", None) or lo
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.decorator_list:
            lo = min(lo, min(d.lineno for d in node.decorator_list))
        k = bisect.bisect_left(lines, lo)
        return k < len(lines) and lines[k] <= hi

    def walk(node, scope):
        for child in ast.iter_child_nodes(node):
            if not holds(child):
                continue
            s = scope
            if isinstance(child, ast.ClassDef):
                init = init_of(child)
                for st in child.body:
                    if not holds(st):
                        continue
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
