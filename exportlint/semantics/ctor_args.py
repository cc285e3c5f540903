"""What a module's constructor argument may hold, read from the constructions in its own file.

``self.downsample = downsample`` in ``__init__`` holds whatever the code that builds the class
passes. timm's resnet builds its blocks in ``make_blocks``: ``downsample = downsample_avg(...) if
avg_down else downsample_conv(...)``, then ``block_fn(inplanes, planes, stride, downsample, ...)``,
where ``block_fn`` is a parameter (the block class is chosen by the caller). ``may_hold`` follows
such a value: the construction sites of the class in the same file (calls of the class by name,
and calls of a parameter of the enclosing function whose arguments fit the class's ``__init__``
when the file hands the class around as a value), the local assignments of the argument
(both arms of a conditional), and the returns of a same-file factory function, down to a call
the caller's predicate accepts (a ceil-mode pooling constructor for EXL131).

This is a MAY analysis (some construction may pass such a value): rules report what it finds
as a warning. It reads the stdlib ``ast`` of the one file, statement by statement
(each function or method alone, from its span in the file's outline; the whole ``file_tree``
without an outline),
and nothing else, and of it only the functions whose text names what the caller looks
for or a same-file factory that does; the per-file sites are kept per run, and every walk is
bounded in depth.
"""

from __future__ import annotations

import ast
import os
from typing import Any, Callable, Optional

_MAX_DEPTH = 8
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def index_of(project: Any, path: str) -> Any:
    from exportlint.semantics.project import index_of as _index_of

    return _index_of(project, path)


def _state(project: Any) -> dict:
    st = project.__dict__.get("_ctor_args_state")
    files = project.run_files
    if st is None or st["files"] is not files:
        st = {"files": files, "sites": {}}
        project.__dict__["_ctor_args_state"] = st
    return st


class _FileSites:
    """A module's top-level classes and functions (from the file's outline: their names and
    spans), and (per ``word``, lazily) the calls of the functions and methods that may build a
    value holding ``word``: those whose text contains ``word`` or calls a module-level function
    whose text does (a factory). Only those functions are parsed (each alone, from its span)
    and walked, and a class's ``__init__`` alone: the rest of a model file is never visited.
    Without an outline, the whole file's tree (``file_tree``)."""

    def __init__(self, project: Any, path: str, text: str, outline: Any) -> None:
        self.project, self.path, self.text = project, path, text
        self.lines = text.splitlines()
        self.outline = outline
        #: node id -> line offset of the statement it was parsed from (its lines start at 1)
        self.offset: dict[int, int] = {}
        self._nodes: dict[str, Any] = {}
        if outline is not None:
            self.tree = None
            self._funcs = {f.name: (f.start, f.end) for f in outline.funcs if not f.is_method}
            self._methods = {c: [(m.name, m.start, m.end) for m in v[0]] for c, v in outline.classes.items()}
        else:
            from exportlint.semantics.project import file_tree

            self.tree = file_tree(project, path)
            body = self.tree.body if self.tree is not None else []
            self._funcs = {n.name: (n.lineno, n.end_lineno) for n in body if isinstance(n, _FUNCS)}
            self._methods = {n.name: [(m.name, m.lineno, m.end_lineno) for m in n.body if isinstance(m, _FUNCS)]
                             for n in body if isinstance(n, ast.ClassDef)}
        self._calls: dict[str, list] = {}
        self._handed: dict[str, bool] = {}
        self._assigns: dict[int, dict[str, list[ast.expr]]] = {}

    @property
    def functions(self) -> dict:
        return self._funcs

    def _span(self, a: int, b: int) -> Optional[ast.AST]:
        """The one function statement of lines a..b (decorators included), parsed alone (an
        indented method under ``if 1:``); its nodes' line offset recorded."""
        key = (a, b)
        if key in self._nodes:
            return self._nodes[key]
        text = "\n".join(self.lines[a - 1:b])
        indented = text[:1] in (" ", "\t")
        got = None
        try:
            mod = ast.parse("if 1:\n" + text if indented else text)
            body = mod.body[0].body if indented else mod.body
            got = body[0] if len(body) == 1 and isinstance(body[0], _FUNCS) else None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            got = None
        if got is not None:
            off = a - 2 if indented else a - 1
            for n in ast.walk(got):
                self.offset[id(n)] = off
        self._nodes[key] = got
        return got

    def function(self, name: str) -> Optional[ast.AST]:
        """The module-level function ``name``."""
        if self.tree is not None:
            return next((n for n in self.tree.body if isinstance(n, _FUNCS) and n.name == name), None)
        span = self._funcs.get(name)
        return self._span(*span) if span is not None else None

    def method(self, cls: str, name: str) -> Optional[ast.AST]:
        """The method ``name`` of the module-level class ``cls`` (the last one of that name)."""
        if self.tree is not None:
            c = next((n for n in self.tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
            return next((m for m in reversed(c.body) if isinstance(m, _FUNCS) and m.name == name), None) \
                if c is not None else None
        spans = [(a, b) for m, a, b in self._methods.get(cls, ()) if m == name]
        return self._span(*spans[-1]) if spans else None

    def line(self, node: ast.AST) -> int:
        return node.lineno + self.offset.get(id(node), 0)

    def _seg(self, a: int, b: int) -> str:
        return "\n".join(self.lines[a - 1:b])

    def calls(self, word: str) -> list:
        """[(Call, the function or method it sits in)] of the scopes that may build ``word``."""
        got = self._calls.get(word)
        if got is not None:
            return got
        makers = [name for name, (a, b) in self._funcs.items() if word in self._seg(a, b)]
        needles = [word] + [name + "(" for name in makers]
        got = []
        for name, (a, b) in self._funcs.items():
            if any(n in self._seg(a, b) for n in needles):
                fn = self.function(name)
                if fn is not None:
                    got += [(n, fn) for n in ast.walk(fn) if isinstance(n, ast.Call)]
        for cls, methods in self._methods.items():
            for m, a, b in methods:
                if any(n in self._seg(a, b) for n in needles):
                    fn = self.method(cls, m)
                    if fn is not None:
                        got += [(n, fn) for n in ast.walk(fn) if isinstance(n, ast.Call)]
        self._calls[word] = got
        return got

    def name_calls(self, word: str) -> tuple[dict, list]:
        """The calls of ``calls(word)`` of a plain name: ({name: [(Call, function)]}, [(Call,
        function)] of a name the function was handed: a parameter or loop variable)."""
        got = self._calls.get((word, "names"))
        if got is None:
            named: dict = {}
            opaque = []
            for call, fn in self.calls(word):
                if isinstance(call.func, ast.Name):
                    named.setdefault(call.func.id, []).append((call, fn))
                    if _opaque(self, fn, call.func.id):
                        opaque.append((call, fn))
            got = self._calls[(word, "names")] = (named, opaque)
        return got

    def handed_around(self, cls: str) -> bool:
        """The file names ``cls`` other than to call it or define it (a default, a table entry, an
        annotation): a builder may be handed the class."""
        got = self._handed.get(cls)
        if got is None:
            got = self._handed[cls] = _HANDED(cls).search(self.text) is not None
        return got

    def assigns(self, fn: ast.AST) -> dict[str, list[ast.expr]]:
        """{name: [values]} of the plain ``name = value`` statements of ``fn`` (nested functions
        excluded); a name also bound any other way (a loop, ``+=``, a tuple target, ``with``)
        maps to [None] (unknown)."""
        got = self._assigns.get(id(fn))
        if got is not None:
            return got
        out: dict[str, list] = {}

        def walk(node: ast.AST) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (*_FUNCS, ast.Lambda, ast.ClassDef)):
                    continue
                if isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name):
                    out.setdefault(child.targets[0].id, []).append(child.value)
                    walk(child.value)
                    continue
                if isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
                    out.setdefault(child.id, []).append(None)
                walk(child)

        walk(fn)
        self._assigns[id(fn)] = out
        return out


def _sites(project: Any, path: str) -> Optional[_FileSites]:
    from exportlint.semantics.project import file_text

    ap = os.path.abspath(path)
    st = _state(project)["sites"]
    text = file_text(project, ap)
    fi = index_of(project, ap)
    if text is None or fi is None:
        return None
    got = st.get(ap)
    if got is None or got.text is not text:
        got = st[ap] = _FileSites(project, ap, text, getattr(fi, "outline", None))
    return got


def _HANDED(cls: str) -> Any:
    """The pattern of ``cls`` named other than to call it or define it (``_FileSites.handed_around``)."""
    import re

    return re.compile(r"(?<!class )\b" + re.escape(cls) + r"\b(?![ \t]*[(\w])")


def function_sites(project: Any, path: str, name: str) -> Optional[tuple[_FileSites, ast.AST]]:
    """(the file's per-run sites, the stdlib ``ast`` of its module-level function ``name``, parsed
    alone from its span), or None."""
    fs = _sites(project, path)
    if fs is None:
        return None
    fn = fs.function(name)
    return (fs, fn) if fn is not None else None


def source_of(project: Any, path: str, node: ast.AST) -> Optional[str]:
    """The source text of an expression ``node`` of a function ``function_sites`` parsed."""
    fs = _sites(project, path)
    if fs is None or getattr(node, "end_lineno", None) is None:
        return None
    a, b = fs.line(node), node.end_lineno + fs.offset.get(id(node), 0)
    if not (1 <= a <= b <= len(fs.lines)):
        return None
    # (the offsets count UTF-8 bytes)
    lines = [ln.encode("utf-8", "surrogatepass") for ln in fs.lines[a - 1:b]]
    if len(lines) == 1:
        seg = lines[0][node.col_offset:node.end_col_offset]
    else:
        seg = b"\n".join([lines[0][node.col_offset:]] + lines[1:-1] + [lines[-1][:node.end_col_offset]])
    return seg.decode("utf-8", "replace")


def _params(fn: ast.AST) -> list[str]:
    a = fn.args
    return [p.arg for p in (*a.posonlyargs, *a.args)]


def _init_param(fs: Any, cls: str, attr: str) -> Optional[tuple]:
    """(the class's ``__init__``, the parameter) when ``self.<attr>`` is set from one of its
    parameters (past ``self``) that the body never rebinds; None otherwise."""
    from exportlint.semantics.ctor_values import attr_source

    init = fs.method(cls, "__init__")
    if init is None:
        return None
    how, param = attr_source(init, attr)
    if how != "param" or param not in _params(init)[1:] or param in fs.assigns(init):
        return None
    return init, param


def _opaque(fs: _FileSites, fn: ast.AST, name: str) -> bool:
    """``name`` in ``fn`` is a parameter or a name bound only by a loop, ``with`` or unpacking
    (no plain assignment, no function or class of the file): a value the builder was handed."""
    got = fs.assigns(fn).get(name)
    if got is None:
        return name in _params(fn)
    return all(v is None for v in got)


def _fits(call: ast.Call, init: ast.FunctionDef) -> bool:
    """The call's arguments bind to ``init``'s parameters (counted without ``self``)."""
    a = init.args
    pos = _params(init)[1:]
    plain = [x for x in call.args if not isinstance(x, ast.Starred)]
    if len(plain) > len(pos) and a.vararg is None:
        return False
    names = set(pos) | {p.arg for p in a.kwonlyargs}
    return all(k.arg is None or k.arg in names or a.kwarg is not None for k in call.keywords)


def _bound(call: ast.Call, init: ast.FunctionDef, param: str) -> Optional[ast.expr]:
    for k in call.keywords:
        if k.arg == param:
            return k.value
    pos = _params(init)[1:]
    if param not in pos:
        return None
    i = pos.index(param)
    if any(isinstance(x, ast.Starred) for x in call.args[: i + 1]):
        return None
    return call.args[i] if i < len(call.args) else None


def may_hold(project: Any, path: str, cls: str, attr: str, word: str,
             accept: Callable[[ast.Call, Any, Callable], Optional[str]]) -> Optional[tuple[str, int, str]]:
    """A value that ``self.<attr>`` of ``cls`` (a class of the file ``path``) may hold, which
    ``accept(call, file_index, callees)`` recognises (it returns a description; what it accepts
    is written with ``word`` in it: ``ceil_mode``): the attribute is assigned once, at the top of
    ``__init__``, from a parameter, and some construction of the class in this file passes such
    a value for it. (the description, the line of that call, the parameter), or None."""
    if project is None or getattr(project, "run_files", None) is None:
        return None
    fs = _sites(project, path)
    if fs is None:
        return None
    # the calls that may build the class, before anything of it is parsed: most files have none
    named, opaque = fs.name_calls(word)
    sites = named.get(cls, []) + (opaque if opaque and fs.handed_around(cls) else [])
    if not sites:
        return None
    got = _init_param(fs, cls, attr)
    if got is None:
        return None
    init, param = got
    fi = index_of(project, path)
    if fi is None:
        return None
    memo = _state(project).setdefault("memo", {})
    key = (os.path.abspath(path), id(fs), cls, param, word, accept)
    if key in memo:
        return memo[key]
    found = None
    for call, fn in sites:
        if call.func.id != cls and not _fits(call, init):
            continue  # `block_fn(...)`: a parameter or loop variable of the builder, which may be the class
        expr = _bound(call, init, param)
        if expr is None:
            continue
        got = _follow(fs, fi, expr, fn, accept, 0, set())
        if got is not None:
            found = (got[0], got[1], param)
            break
    memo[key] = found
    return found


def may_hold_across(project: Any, path: str, cls: str, attr: str, word: str,
                    accept: Callable[[ast.Call, Any, Callable], Optional[str]],
                    deps: Optional[set] = None) -> Optional[tuple[str, int, str, str]]:
    """``may_hold`` where the class is built in another file: the file of ``cls`` hands the
    class to a builder of another project file (``ResNet(block=ResNestBottleneck)``, ``dict(block=
    SKBlock, ...)`` for a builder whose constructor or function takes ``block``, or a positional
    argument of a direct call of the builder), and that file builds it through a name it was
    handed (``block_fn(inplanes, planes, stride, downsample, ...)`` in timm's ``make_blocks``),
    with arguments that fit the class's ``__init__``. (description, line, parameter, the
    builder's path), or None. The same MAY reading as ``may_hold``: some build may pass it.
    ``deps`` gets the builders' files (the answer depends on them)."""
    if project is None or getattr(project, "run_files", None) is None:
        return None
    from exportlint.semantics.project import file_text

    ap = os.path.abspath(path)
    text = file_text(project, ap)
    # (the builders first, from the text alone: most classes are handed to no other file, and
    # then nothing of this file is parsed)
    builders = _builder_files(project, ap, text, cls, word) if text is not None else []
    if deps is not None:
        deps.update(builders)
    if not builders:
        return None
    # (then the builders' calls of a name they were handed that may build ``word``: parsed once
    # per builder and run; only then this class's ``__init__``)
    sites = []
    for bpath in builders:
        bfs = _sites(project, bpath)
        bfi = index_of(project, bpath)
        if bfs is not None and bfi is not None:
            opaque = bfs.name_calls(word)[1]
            if opaque:
                sites.append((bpath, bfs, bfi, opaque))
    if not sites:
        return None
    fs = _sites(project, path)
    if fs is None:
        return None
    got = _init_param(fs, cls, attr)
    if got is None:
        return None
    init, param = got
    memo = _state(project).setdefault("memo", {})
    key = ("across", os.path.abspath(path), id(fs), cls, param, word, accept)
    if key in memo:
        return memo[key]
    found = None
    for bpath, bfs, bfi, opaque in sites:
        for call, fn in opaque:
            if not _fits(call, init):
                continue
            expr = _bound(call, init, param)
            if expr is None:
                continue
            got = _follow(bfs, bfi, expr, fn, accept, 0, set())
            if got is not None:
                found = (got[0], got[1], param, bpath)
                break
        if found is not None:
            break
    memo[key] = found
    return found


#: at most this many imported builders are looked at for one class (their files' sites are kept per run)
_MAX_BUILDERS = 8


def _handoffs(text: str, cls: str) -> tuple[set, list]:
    """Where ``text`` hands ``cls`` to a call: ({``kw`` of each ``kw=cls``}, [the dotted callee
    of each ``callee(cls, ...)``]), read from the text around each occurrence of the name (a
    string or a comment that looks so only adds a candidate builder, which must still take the
    keyword)."""
    keywords: set = set()
    direct: list = []
    n = len(cls)
    i = text.find(cls)
    while i >= 0:
        j = i + n
        if (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_.")) and (
                j >= len(text) or not (text[j].isalnum() or text[j] == "_")):
            k = j
            while k < len(text) and text[k] in " \t":
                k += 1
            after = text[k] if k < len(text) else ""
            b = i - 1
            while b >= 0 and text[b] in " \t":
                b -= 1
            before = text[b] if b >= 0 else ""
            if before == "=" and after not in ("(", ".") and (b == 0 or text[b - 1] not in "=!<>"):
                e = b - 1
                while e >= 0 and text[e] in " \t":
                    e -= 1
                s0 = e
                while s0 >= 0 and (text[s0].isalnum() or text[s0] == "_"):
                    s0 -= 1
                if s0 < e:
                    keywords.add(text[s0 + 1:e + 1])
            elif before == "(" and after in (",", ")"):
                e = b - 1
                while e >= 0 and text[e] in " \t":
                    e -= 1
                s0 = e
                while s0 >= 0 and (text[s0].isalnum() or text[s0] in "_."):
                    s0 -= 1
                name = text[s0 + 1:e + 1]
                if name and (name[0].isalpha() or name[0] == "_"):
                    direct.append(name)
        i = text.find(cls, i + 1)
    return keywords, direct


def _builder_files(project: Any, path: str, text: str, cls: str, word: str) -> list[str]:
    """The other project files the file of ``cls`` hands the class to, whose text names ``word``
    (what the caller looks for: a file without it builds no such value): the file of the callee
    of a direct call that takes the class as an argument, and, for ``kw=cls`` in any call
    (``dict(block=cls, ...)`` forwarded as ``**kwargs``), the files of the builders this file
    imports whose ``__init__`` (a class) or signature (a function) takes a parameter ``kw``.
    In the order found, each once; empty when the class is handed only to this file's own code
    or to names that leave the project."""
    from exportlint.semantics.project import file_text, may_define

    st = _state(project).setdefault("builders", {})
    key = (path, cls, word)
    got = st.get(key)
    if got is not None and got[0] is text:
        return got[1]
    out: list[str] = []
    st[key] = (text, out)
    if not any(m + cls in text for m in ("=", "= ", "(", "( ")):
        return out  # (most classes are only defined and called: `= Cls(` passes, is read below)
    keywords, direct = _handoffs(text, cls)
    if not keywords and not direct:
        return out
    fi = index_of(project, path)
    if fi is None:
        return out
    #: (absolute name, keyword, word) -> the builder's file; absolute name -> (file, its
    #: constructor or function), for every file of the run
    targets = _state(project).setdefault("targets", {})
    resolved = _state(project).setdefault("resolved", {})
    has_word = _state(project).setdefault("has_word", {})

    def target_file(q: str, kw: Optional[str]) -> Optional[str]:
        """The other project file defining the class or function ``q`` (a dotted name as written
        in this file), when it takes ``kw`` (None: any)."""
        head, _, rest = q.partition(".")
        if head in fi.classes or head in fi.functions or head not in fi.imports:
            return None  # this file's own (may_hold follows those) or not imported
        qa = project.absolute(fi, fi.imports[head] + ("." + rest if rest else ""))
        tk = (qa, kw, word)
        if tk not in targets:
            targets[tk] = _target_file(qa, kw)
        got = targets[tk]
        return None if got == path else got

    def _target_file(qa: str, kw: Optional[str]) -> Optional[str]:
        if not may_define(project, qa, (word,)):
            return None  # (no file of the run that names the word can define it: not resolved)
        if qa not in resolved:
            resolved[qa] = _resolve_builder(qa)
        if resolved[qa] is None:
            return None
        tpath, init_of = resolved[qa]
        wk = (tpath, word)
        if wk not in has_word:
            text = file_text(project, tpath)
            has_word[wk] = text is not None and word in text
        if not has_word[wk]:
            return None  # (a file that cannot build what the caller looks for: not parsed)
        if kw is not None:
            tfs = _sites(project, tpath)
            node = None
            if tfs is not None:
                node = tfs.method(*init_of) if init_of[0] is not None else tfs.function(init_of[1])
            if node is None:
                return None
            a = node.args
            if kw not in {p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)}:
                return None
        return tpath

    def _resolve_builder(qa: str) -> Optional[tuple]:
        if project.index(qa.partition(".")[0]) is None and project.index(qa.rpartition(".")[0]) is None:
            return None  # (torch, numpy, ...: outside the project)
        rc = project.resolve_class(qa)
        if rc is not None:
            return rc[0].path, (rc[1], "__init__")
        t = project.resolve_function(qa)
        if t is None or t.is_method:
            return None
        return t.path, (None, t.qual)

    for q in direct:
        p = target_file(q, None)
        if p is not None and p not in out:
            out.append(p)
    if keywords:
        # (the imported names, in the file's order; each resolved once)
        for local in list(fi.imports)[:64]:
            if len(out) >= _MAX_BUILDERS:
                break
            if not local[:1].isalpha():
                continue
            for kw in sorted(keywords):
                p = target_file(local, kw)
                if p is not None and p not in out:
                    out.append(p)
                    break
    del out[_MAX_BUILDERS:]
    return out


def _follow(fs: _FileSites, fi: Any, expr: Optional[ast.expr], scope: Optional[ast.AST], accept, depth: int,
            seen: set) -> Optional[tuple[str, int]]:
    if expr is None or depth > _MAX_DEPTH:
        return None
    if isinstance(expr, ast.IfExp):
        return (_follow(fs, fi, expr.body, scope, accept, depth + 1, seen)
                or _follow(fs, fi, expr.orelse, scope, accept, depth + 1, seen))
    if isinstance(expr, ast.Name) and scope is not None:
        if (id(scope), expr.id) in seen:
            return None
        seen.add((id(scope), expr.id))
        for v in fs.assigns(scope).get(expr.id, ()):
            got = _follow(fs, fi, v, scope, accept, depth + 1, seen)
            if got is not None:
                return got
        return None
    if not isinstance(expr, ast.Call):
        return None
    desc = accept(expr, fi, lambda e: _callee_values(fs, e, scope))
    if desc is not None:
        return desc, fs.line(expr)
    f = expr.func
    # a same-file factory: what it returns
    if isinstance(f, ast.Name) and f.id in fs.functions and not (scope is not None and fs.assigns(scope).get(f.id)):
        fn = fs.function(f.id)
        for ret in _returns(fn) if fn is not None else ():
            got = _follow(fs, fi, ret, fn, accept, depth + 1, seen)
            if got is not None:
                return got
        return None
    # a container built of modules: `nn.Sequential(pool, conv)` / `nn.Sequential(*[pool, conv])`
    from exportlint.semantics.index import ast_qualname

    q = ast_qualname(fi.imports, f) or ""
    if q in ("torch.nn.Sequential", "torch.nn.modules.container.Sequential", "torch.nn.ModuleList"):
        items: list = []
        for a in expr.args:
            v = a.value if isinstance(a, ast.Starred) else a
            items.extend(v.elts if isinstance(v, (ast.List, ast.Tuple)) else [v])
        for it in items:
            got = _follow(fs, fi, it, scope, accept, depth + 1, seen)
            if got is not None:
                return got
    return None


def _callee_values(fs: _FileSites, e: ast.expr, scope: Optional[ast.AST]) -> list:
    """The expressions a callee may be: itself, or the values of a local name (both arms of a
    conditional): ``avg_pool_fn = AvgPool2dSame if ... else nn.AvgPool2d``."""
    out, todo = [], [e]
    while todo and len(out) < 8:
        x = todo.pop()
        if isinstance(x, ast.IfExp):
            todo += [x.body, x.orelse]
        elif isinstance(x, ast.Name) and scope is not None and x.id in fs.assigns(scope):
            todo += [v for v in fs.assigns(scope)[x.id] if v is not None and not isinstance(v, ast.Name)]
            todo += [v for v in fs.assigns(scope)[x.id] if isinstance(v, ast.Name) and v.id != x.id][:2]
        else:
            out.append(x)
    return out


def _returns(fn: ast.AST) -> list:
    out = []

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (*_FUNCS, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, ast.Return) and child.value is not None:
                out.append(child.value)
            walk(child)

    walk(fn)
    return out
