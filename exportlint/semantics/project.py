"""The project: module names, import resolution across files, and cross-file calls.

Roots: for every linted file, walk up while the folder holds an ``__init__.py``; the folder
above the top package is a root (like a ``sys.path`` entry); the file's own folder is one too
(scripts importing siblings). Modules are indexed lazily (``index.py``, stdlib ``ast``) the
first time a name resolves into them, so linting one file indexes only what it imports.

Resolution follows ``import pkg.mod as m``, ``from pkg import mod``, relative imports,
re-exports (``from .x import f`` in ``__init__``), ``from .x import *`` (``__all__`` when
given), methods through base classes in other files, and constructors of ``self.x`` attributes
(including ``nn.ModuleList`` / ``nn.Sequential`` items). Names that leave the project
(installed packages outside the roots) stay unresolved: opaque. A root that is an installed-
packages folder (``site-packages``, ``dist-packages``: a file of an installed package was
linted) holds only that file's own top-level package for the project; torch and every other
distribution installed beside it stay outside, as they do for a project in its own folder.

``cross_file_calls`` reads a file's semantic model (libcst) and returns the calls of its
export-path functions into functions of other project files, with the argument kinds at the
call: the engine feeds them to the callee file's model as extra roots (see
``SemanticModel(extra_roots=...)``) and iterates to a fixpoint.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from exportlint.semantics.index import RANKS_KEY, FileIndex, ast_qualname, index_source

#: how deep re-exports / base classes are followed
_MAX_DEPTH = 12
#: in a declared class's dims (``export_facts``): the names of the classes it is shown to build
REACH_KEY = "#reach"
#: folders of installed distributions (see the module docstring)
_INSTALLED_DIRS = frozenset({"site-packages", "dist-packages"})


#: bases that make no class an nn.Module
_PLAIN_BASES = frozenset({"object", "ABC", "abc.ABC", "Generic", "Protocol", "typing.Generic", "typing.Protocol"})


@dataclass(frozen=True)
class Target:
    """A function of the project: ``qual`` is ``func`` or ``Class.method`` in ``path``."""

    path: str
    module: str
    qual: str
    is_method: bool


@dataclass
class Root:
    """A call into a function of another file, with the argument kinds at the call."""

    qual: str
    pos: list[str]
    kw: dict[str, str]
    #: (path, line, column, message) hops from an export entry to this call, outermost first
    chain: list[tuple[str, int, int, str]] = field(default_factory=list)
    why: str = "cross-file"

    def key(self) -> tuple:
        return (self.qual, tuple(self.pos), tuple(sorted(self.kw.items())), self.why)


def join_roots(roots: list[Root]) -> list[Root]:
    """One root per function: argument kinds joined over the calls (the shortest chain kept,
    ties broken by its text, so the result does not depend on the order of ``roots``)."""
    from exportlint.semantics.kinds import join

    out: dict[tuple[str, str], Root] = {}
    for r in roots:
        k = (r.qual, r.why)
        prev = out.get(k)
        if prev is None:
            out[k] = Root(r.qual, list(r.pos), dict(r.kw), list(r.chain), r.why)
            continue
        n = max(len(prev.pos), len(r.pos))
        pos = []
        for i in range(n):
            a = prev.pos[i] if i < len(prev.pos) else None
            b = r.pos[i] if i < len(r.pos) else None
            pos.append(a if b is None else b if a is None else join(a, b))
        kw = dict(prev.kw)
        for kk, v in r.kw.items():
            kw[kk] = join(kw[kk], v) if kk in kw else v
        # the shortest chain, ties broken by its text: the same whatever order parallel
        # workers' results arrived in
        chains = [c for c in (list(prev.chain), list(r.chain)) if c]
        chain = min(chains, key=lambda c: (len(c), repr(c))) if chains else []
        out[k] = Root(r.qual, pos, kw, chain, r.why)
    return sorted(out.values(), key=lambda r: (r.qual, r.why))


def roots_digest(roots: list[Root]) -> str:
    h = hashlib.sha256()
    for r in sorted(roots, key=Root.key):
        h.update(repr(r.key()).encode())
        h.update(repr(r.chain).encode())
    return h.hexdigest()[:16]


def package_root(path: Path) -> tuple[Path, str, bool]:
    """(root folder, module name, is_package) of a file by walking up ``__init__.py``."""
    path = path.resolve() if not path.is_absolute() else path
    is_pkg = path.name == "__init__.py"
    parts = [] if is_pkg else [path.stem]
    d = path.parent
    while (d / "__init__.py").is_file():
        parts.append(d.name)
        if d.parent == d:
            break
        d = d.parent
    return d, ".".join(reversed(parts)), is_pkg


class ProjectDims(dict):
    """Class name -> forward parameter -> dims declared dynamic (``Project.export_facts``), merged
    over every class of that bare name, with the same dims per defining file: ``by_path``
    ((abs path, class) -> dims) for the declared classes that resolve, ``paths`` (name -> the
    files defining a declared class of that name), ``bare`` (name -> the dims of declarations
    whose class does not resolve) and ``reach_paths`` (name -> (abs path, class) of the classes
    the declared models of that name are shown to build). ``for_file`` gives a file's view."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.by_path: dict[tuple[str, str], dict[str, set]] = {}
        self.paths: dict[str, set] = {}
        self.bare: dict[str, dict[str, set]] = {}
        self.reach_paths: dict[str, set] = {}

    def for_file(self, path: str, defined: Any) -> dict:
        """The dims as a file defining the classes ``defined`` reads them by bare name: for a
        class of this file, only the declarations that resolve to this file's class (and those
        that resolve nowhere); a declared class of the same name in another module lends it
        nothing (two modules' ``Block``s are different classes). Likewise a declared model's
        reached classes (``REACH_KEY``) keep a class name of this file only when the model builds
        this file's class. Names this file does not define keep the merged dims."""
        if not self.by_path or not defined:
            return self
        ap = os.path.abspath(path)
        out: Optional[dict] = None
        for name, dims in self.items():
            new = dims
            paths = self.paths.get(name)
            if name in defined and paths and paths != {ap}:
                new = {}
                for src in (self.by_path.get((ap, name)), self.bare.get(name)):
                    for k, v in (src or {}).items():
                        new.setdefault(k, set()).update(v)
            reach = new.get(REACH_KEY)
            if reach:
                rp = self.reach_paths.get(name, ())
                keep = {n for n in reach if n not in defined or (ap, n) in rp}
                if keep != reach:
                    new = dict(new)
                    new[REACH_KEY] = keep
            if new is not dims:
                if out is None:
                    out = dict(self)
                if new:
                    out[name] = new
                else:
                    del out[name]
        return self if out is None else out


class Project:
    """Lazily indexed modules under a set of roots."""

    def __init__(self, files: list[str] = (), keep_texts: bool = True) -> None:
        self.roots: list[Path] = []
        #: absolute path -> (module, is_package)
        self._mod_of: dict[str, tuple[str, bool]] = {}
        #: module -> FileIndex (None: not in the project)
        self._by_module: dict[str, Optional[FileIndex]] = {}
        #: path -> digest of the files read (the dependencies of a resolution)
        self.digests: dict[str, str] = {}
        self._texts: dict[str, str] = {}
        #: keep the texts given to add_file (an editor's unsaved buffers); a CLI run reads disk
        self.keep_texts = keep_texts
        #: installed-packages roots -> the top-level packages of the files added from them
        self._installed: dict[Path, set[str]] = {}
        #: a folder of stored indexes (``index_store``: the engine's cache), or None
        self.store_dir: Optional[str] = None
        #: absolute paths of the files the current run analyses (None: not known, every file)
        self.run_files: Optional[frozenset] = None
        for f in files:
            self.add_file(f)

    # ----- files and modules -----
    def add_file(self, path: str, text: Optional[str] = None) -> tuple[str, bool]:
        ap = os.path.abspath(path)
        hit = self._mod_of.get(ap)
        if hit is not None:
            if text is not None and ap in self._texts:
                self._texts[ap] = text
            return hit
        root, module, is_pkg = package_root(Path(ap))
        for r in (root, Path(ap).parent):
            if r not in self.roots:
                self.roots.append(r)
        if root.name in _INSTALLED_DIRS:
            self._installed.setdefault(root, set()).add(module.partition(".")[0])
        self._mod_of[ap] = (module, is_pkg)
        if text is not None and self.keep_texts:
            self._texts[ap] = text
        return module, is_pkg

    def module_of(self, path: str) -> str:
        return self.add_file(path)[0]

    def file_of(self, module: str) -> Optional[tuple[str, bool]]:
        if not module:
            return None
        rel = module.replace(".", os.sep)
        top = module.partition(".")[0]
        for r in self.roots:
            if r in self._installed and top not in self._installed[r]:
                continue  # another installed distribution (torch, ...): outside the project
            p = r / (rel + ".py")
            if p.is_file():
                return str(p), False
            p = r / rel / "__init__.py"
            if p.is_file():
                return str(p), True
        return None

    def index(self, module: str) -> Optional[FileIndex]:
        if module in self._by_module:
            return self._by_module[module]
        found = self.file_of(module)
        fi = None
        if found is not None:
            fi = self.index_path(found[0], module, found[1])
        self._by_module[module] = fi
        return fi

    def index_path(self, path: str, module: Optional[str] = None, is_pkg: Optional[bool] = None) -> Optional[FileIndex]:
        ap = os.path.abspath(path)
        if module is None or is_pkg is None:
            module, is_pkg = self.add_file(ap)
        text = self._texts.get(ap)
        memo = None
        if text is None:
            # a file read from disk is read, decoded and hashed once per run (``_run_state``:
            # rules ask for the same few shared modules' indexes hundreds of times a run).
            # (With the index store, every call reads the stored entry, as before: an entry
            # computed here and the one read back differ in the outline, which is not stored)
            st = _run_state(self) if self.store_dir is None else None
            if st is not None:
                memo = st.setdefault("index_path", {})
                key = (ap, module, is_pkg)
                if key in memo:
                    fi = memo[key]
                    if fi is not None:
                        self._by_module.setdefault(module, fi)
                    return fi
            fi = self._index_from_disk(ap, module, is_pkg)
            if memo is not None:
                memo[key] = fi
            return fi
        return self._index_text(ap, module, is_pkg, text)

    def _index_from_disk(self, ap: str, module: str, is_pkg: bool) -> Optional[FileIndex]:
        try:
            with open(ap, "rb") as fh:
                data = fh.read()
        except OSError:
            return None
        if len(data) > 8 * 1024 * 1024:
            return None
        text = data.decode("utf-8", "replace")  # not kept: the index is what matters
        return self._index_text(ap, module, is_pkg, text)

    def _index_text(self, ap: str, module: str, is_pkg: bool, text: str) -> FileIndex:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        self.digests[ap] = digest
        store = self.store_dir
        fi = None
        if store is not None:
            from exportlint.semantics import index_store

            fi = index_store.load(store, ap, module, is_pkg, digest)
        if fi is None:
            fi = index_source(text, ap, module, is_pkg, digest)
            if store is not None:
                index_store.save(store, fi)
        self._by_module.setdefault(module, fi)
        return fi

    # ----- names -----
    def absolute(self, fi: FileIndex, qual: str) -> str:
        """A qualified name from the libcst import map (relative names keep their dots)."""
        if not qual.startswith("."):
            return qual
        level = len(qual) - len(qual.lstrip("."))
        from exportlint.semantics.index import absolute

        return absolute(fi.package(), level, qual[level:] or None)

    def resolve(self, qual: str, deps: Optional[set] = None, _depth: int = 0) -> Optional[tuple[FileIndex, list[str]]]:
        """(file, [name, member...]) where ``qual`` is defined, following re-exports; the
        module itself when ``qual`` names a module (empty list)."""
        if _depth > _MAX_DEPTH or not qual:
            return None
        parts = qual.split(".")
        for i in range(len(parts), 0, -1):
            fi = self.index(".".join(parts[:i]))
            if fi is None:
                continue
            if i == len(parts) and i >= 2:
                # `pkg.name` where pkg/__init__.py rebinds `name` (`from .roi_align import
                # roi_align`): after that import the package attribute is the function, not the
                # submodule of the same name (Python's semantics of `from pkg import name`)
                parent = self.index(".".join(parts[: i - 1]))
                name = parts[i - 1]
                if (parent is not None and parent.is_package
                        and (parent.defines(name) or parent.imports.get(name, fi.module) != fi.module)):
                    if deps is not None:
                        deps.add(parent.path)
                    return self.resolve_in(parent, parts[i - 1:], deps, _depth + 1)
            if deps is not None:
                deps.add(fi.path)
            return self.resolve_in(fi, parts[i:], deps, _depth + 1)
        return None

    def resolve_in(self, fi: FileIndex, rest: list[str], deps: Optional[set], depth: int) -> Optional[tuple[FileIndex, list[str]]]:
        """Where the dotted ``rest`` read in module ``fi`` is defined (see ``resolve``)."""
        if not rest:
            return fi, []
        if depth > _MAX_DEPTH:
            return None
        name = rest[0]
        if fi.defines(name):
            return fi, rest
        if name in fi.imports:
            target = fi.imports[name]
            return self.resolve(".".join([target] + rest[1:]), deps, depth + 1)
        for m in fi.star:
            sfi = self.index(m)
            if sfi is not None and sfi.exports_name(name):
                if deps is not None:
                    deps.add(sfi.path)
                r = self.resolve_in(sfi, rest, deps, depth + 1)
                if r is not None:
                    return r
        if fi.is_package:
            sub = self.index(f"{fi.module}.{name}")
            if sub is not None:
                if deps is not None:
                    deps.add(sub.path)
                return self.resolve_in(sub, rest[1:], deps, depth + 1)
        return None

    def resolve_function(self, qual: str, deps: Optional[set] = None) -> Optional[Target]:
        """The function (``mod.func``) or method (``mod.Class.method``, through base classes)
        ``qual`` names; None for classes themselves (constructors are not export code)."""
        r = self.resolve(qual, deps)
        if r is None:
            return None
        fi, rest = r
        if len(rest) == 1 and rest[0] in fi.functions:
            return Target(fi.path, fi.module, rest[0], False)
        if len(rest) == 2 and rest[0] in fi.classes:
            return self.find_method(fi, rest[0], rest[1], deps)
        return None

    def resolve_class(self, qual: str, deps: Optional[set] = None) -> Optional[tuple[FileIndex, str]]:
        r = self.resolve(qual, deps)
        if r is None:
            return None
        fi, rest = r
        if len(rest) == 1 and rest[0] in fi.classes:
            return fi, rest[0]
        return None

    def base_class(self, fi: FileIndex, base: str, deps: Optional[set]) -> Optional[tuple[FileIndex, str]]:
        """The project class a name read in ``fi`` refers to (local, star-imported, imported)."""
        if not base:
            return None
        if base in fi.classes:
            return fi, base
        if "." not in base and fi.star:
            for m in fi.star:
                sfi = self.index(m)
                if sfi is not None and sfi.exports_name(base):
                    r = self.resolve_in(sfi, [base], deps, 1)
                    if r is not None and len(r[1]) == 1 and r[1][0] in r[0].classes:
                        return r[0], r[1][0]
        return self.resolve_class(self.absolute(fi, base), deps)

    def find_method(self, fi: FileIndex, cls: str, method: str, deps: Optional[set] = None,
                    _depth: int = 0, skip_own: bool = False) -> Optional[Target]:
        """``method`` on ``cls`` or its bases (depth-first, like a simple MRO)."""
        if _depth > _MAX_DEPTH:
            return None
        ci = fi.classes.get(cls)
        if ci is None:
            return None
        if method in ci.methods and not skip_own:
            return Target(fi.path, fi.module, f"{cls}.{method}", True)
        for b in ci.bases:
            bc = self.base_class(fi, b, deps)
            if bc is None:
                continue
            if deps is not None:
                deps.add(bc[0].path)
            r = self.find_method(bc[0], bc[1], method, deps, _depth + 1)
            if r is not None:
                return r
        return None

    def is_module_class(self, fi: FileIndex, cls: str) -> bool:
        """An nn.Module subclass (through project classes of any file)."""
        return self.module_class_verdict(fi, cls) is True

    def module_class_verdict(self, fi: FileIndex, cls: str, _depth: int = 0) -> Optional[bool]:
        """``is_module_class`` when the project can tell: True (an nn.Module through project
        classes), False (every base is a project class, ``object``, ``ABC`` or a typing
        generic, and none is a module), None (a base is neither: it leaves the project)."""
        ci = fi.classes.get(cls)
        if ci is None or _depth > _MAX_DEPTH:
            return None
        verdict: Optional[bool] = False
        for b in ci.bases:
            if b.startswith("torch.nn.") and not b.startswith("torch.nn.functional") and b[9:10].isupper():
                return True
            if b.startswith("torch.nn.modules."):
                return True
            if b in _PLAIN_BASES or b.startswith("typing."):
                continue
            bc = self.base_class(fi, b, None)
            r = self.module_class_verdict(bc[0], bc[1], _depth + 1) if bc is not None else None
            if r:
                return True
            if r is None:
                verdict = None
        return verdict

    # ----- project facts (CONTRACTS.md item 1) -----
    def export_facts(self, files: list[str]) -> tuple[Optional[frozenset], Optional[dict], Optional[bool]]:
        """(opsets, dynamic dims per exported class, declares dynamic) over the export calls of
        these files; all None when none of them calls an exporter. The dims of a class that
        resolves in the project also hold ``REACH_KEY``: the names of the classes it is shown to
        build (``reached_classes``)."""
        calls = []
        #: (path, class) of each declared class that resolves -> (FileIndex, class, its forward
        #: parameter -> dims): ``dim_flow.function_dims`` reads these per class, not per name (two
        #: modules of a project may each declare a class of the same name with other dims)
        self.declared_classes: dict[tuple[str, str], tuple[FileIndex, str, dict[str, set]]] = {}
        for p in files:
            fi = self.index_path(p)
            if fi is None:
                continue
            for ec in fi.export_calls:
                calls.append((fi, ec))
        if not calls:
            return None, None, None
        # a module-level `dynamic_shapes` declaration (api "dynamic_shapes", no export call)
        # gives dims for its class only: no opset, and no project-wide "declares dynamic"
        real = [ec for _, ec in calls if ec.api != "dynamic_shapes"]
        opsets = frozenset(ec.opset for ec in real if ec.opset is not None) if real else None
        dynamic = ProjectDims()
        declares = False if real else None
        for fi, ec in calls:
            if ec.api != "dynamic_shapes":
                declares = declares or ec.declares_dynamic
            if not ec.dynamic:
                continue
            cls_q = ec.model_class or ec.model
            name = (cls_q or "?").rsplit(".", 1)[-1]
            params: list[str] = []
            rc = None
            if cls_q:
                rc = self.base_class(fi, cls_q, None) if "." not in cls_q else self.resolve_class(self.absolute(fi, cls_q))
                if rc is not None:
                    params = self.forward_params(rc[0], rc[1])
            # the dims by class name (what the rules look up) and, for a class that resolves, by
            # that class alone (``declared_classes``)
            ds = [dynamic.setdefault(name, {})]
            if rc is not None:
                ds.append(self.declared_classes.setdefault((rc[0].path, rc[1]), (rc[0], rc[1], {}))[2])
                # the same dims per defining (file, class), what a file's view reads
                # (``ProjectDims.for_file``): a class of another module of the same bare name
                # does not take them
                ap = os.path.abspath(rc[0].path)
                dynamic.paths.setdefault(name, set()).add(ap)
                ds.append(dynamic.by_path.setdefault((ap, name), {}))
                # the classes the exported model is shown to build (its submodules' classes and
                # bases, transitively): where a helper class may take the model's dims
                seen: set = set()
                reached = self.reached_classes(rc[0], rc[1], seen_out=seen)
                dynamic.reach_paths.setdefault(name, set()).update((os.path.abspath(f), c) for f, c in seen)
                for d in ds:
                    d.setdefault(REACH_KEY, set()).update(reached)
            else:
                # the class does not resolve (a single-file run, the LSP): its dims stay by name
                ds.append(dynamic.bare.setdefault(name, {}))
            for d in ds:
                for k, dims in ec.dynamic.items():
                    if k == RANKS_KEY:
                        continue  # placed below, once the parameters' dims are in
                    if k.startswith("#"):  # the i-th positional input (a tuple of specs)
                        i = int(k[1:])
                        if i < len(params):
                            d.setdefault(params[i], set()).update(dims)
                        else:
                            d.setdefault("*", set()).add("*")
                        continue
                    d.setdefault(k, set()).update(dims)
                    if ec.input_names and k in ec.input_names and params:
                        i = ec.input_names.index(k)
                        if i < len(params):
                            d.setdefault(params[i], set()).update(dims)
                for m in ec.dynamic.get(RANKS_KEY, ()):
                    # "rank:i=r": the i-th example input's rank, kept on a parameter with declared dims
                    i, r = m[5:].split("=")
                    if int(i) < len(params) and any(isinstance(x, int) for x in d.get(params[int(i)], ())):
                        d[params[int(i)]].add(f"rank:{r}")
        return opsets, dynamic, declares

    def reached_classes(self, fi: FileIndex, cls: str, limit: int = 500, seen_out: Optional[set] = None) -> set:
        """Names of the project classes that ``cls`` is shown to build: itself, its bases, and the
        classes of the submodules its ``__init__`` (or a base's) assigns (``self.x = Block(...)``,
        the items of ``nn.ModuleList([...])`` / ``nn.Sequential(...)``, what a project helper
        returns: ``built_classes``), transitively. A submodule appended later, or built by a class
        the code was handed, is not seen: the set is a lower bound."""
        seen: set = set() if seen_out is None else seen_out
        names: set = set()
        todo = [(fi, cls)]
        while todo and len(seen) < limit:
            f, c = todo.pop()
            if (f.path, c) in seen:
                continue
            seen.add((f.path, c))
            names.add(c)
            ci = f.classes.get(c)
            if ci is None:
                continue
            for b in ci.bases:
                bc = self.base_class(f, b, None)
                if bc is not None:
                    todo.append(bc)
            for ctors in ci.attrs.values():
                for q in ctors:
                    todo.extend(built_classes(self, f, q, None) or ())
        return names

    def forward_params(self, fi: FileIndex, cls: str) -> list[str]:
        t = self.find_method(fi, cls, "forward")
        if t is None:
            return []
        import ast

        text = self._texts.get(os.path.abspath(t.path))
        if text is None:
            try:
                with open(t.path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                return []
        try:
            tree = ast.parse(text)
        except Exception:
            return []
        cname, meth = t.qual.split(".", 1)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == cname:
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == meth:
                        a = item.args
                        return [p.arg for p in a.posonlyargs + a.args][1:] + [p.arg for p in a.kwonlyargs]
        return []


# ---------------------------------------------------------------------------------------
# cross-file calls of a file's export path (reads the libcst semantic model)
# ---------------------------------------------------------------------------------------


def _is_self_attr(facts: Any, e: Any) -> bool:
    """``self.<name>`` in a method (``facts.self_name`` is the method's first parameter)."""
    import libcst as cst

    return (facts.self_name is not None and isinstance(e, cst.Attribute) and isinstance(e.value, cst.Name)
            and e.value.value == facts.self_name)


def _followed(kinds: list[str]) -> bool:
    """A call is followed into another file only when it hands over a tensor or a value
    derived from one (a size, data): what the helper does with constants is the caller's
    file's business, and unknown stays unknown."""
    names = _FOLLOWED_NAMES
    if not names:  # (imported on first use, once: this module is read without libcst)
        from exportlint.semantics.kinds import DATA, SHAPE, TENSORISH, TENSORS
        from exportlint.semantics.objects import informative

        names[:] = [TENSORISH, (SHAPE, DATA, TENSORS), informative]
    tensorish, derived, informative = names
    return any(k in tensorish or k in derived or informative(k) for k in kinds)


#: what ``_followed`` reads (kinds, objects), once imported
_FOLLOWED_NAMES: list = []


def split_arg_kinds(call: Any, arg_kinds: list[str], skip: int = 0) -> tuple[list[str], dict[str, str]]:
    """The kinds of a call's arguments (``arg_kinds``, in argument order) split into positional
    ones (after ``skip`` unknown leading ones; a star argument is unknown) and keyword ones."""
    from exportlint.semantics.kinds import UNKNOWN

    pos: list[str] = [UNKNOWN] * skip
    kw: dict[str, str] = {}
    for a, k in zip(call.args, arg_kinds):
        if a.star:
            pos.append(UNKNOWN)
        elif a.keyword is None:
            pos.append(k)
        else:
            kw[a.keyword.value] = k
    return pos, kw


def cross_file_calls(project: Project, fi: FileIndex, model: Any, deps: set,
                     forwards: Optional[list] = None) -> list[tuple[Any, Any, Target, Root, Optional[str]]]:
    """(FunctionFacts, call node, target, root without chain, key) for every call of the file's
    export path that resolves to a function of another project file; ``key`` names the call
    for ``SemanticModel.call_returns`` (the callee's result kind, once known). ``forwards``
    collects (FunctionFacts, call node, target) of the calls that resolve to the ``forward`` of
    a module class in another file (an export entry of its own file: not followed)."""
    import libcst as cst

    from exportlint.semantics.imports import dotted

    out = []
    #: (class, method) -> ``_self_call``'s answer: the same `self.m(...)` is called from many
    #: functions of a class (its deps, added by the first ask, are this call's ``deps`` too)
    self_calls: dict[tuple[int, str], Optional[Target]] = {}
    for facts in model.functions:
        cls = facts.cls
        loop_vars: dict[str, Any] = {}
        for lp in facts.loops:
            node = lp.node
            if isinstance(node, cst.For):
                it, tgt = node.iter, node.target
                if (isinstance(it, cst.Call) and dotted(it.func) == "enumerate" and it.args
                        and isinstance(tgt, cst.Tuple) and len(tgt.elements) == 2):
                    it, tgt = it.args[0].value, tgt.elements[1].value
                if isinstance(it, cst.Subscript):
                    it = it.value
                if isinstance(tgt, cst.Name) and _is_self_attr(facts, it):
                    loop_vars[tgt.value] = it.attr.value
        for site in facts.calls:
            e = site.node
            if not _followed(site.arg_kinds):
                continue  # nothing tensor-derived handed over: not followed, not resolved
            target: Optional[Target] = None
            skip = 0
            if site.receiver_kind == "self" and cls is not None and site.method:
                sk = (id(cls), site.method)
                if sk in self_calls:
                    target = self_calls[sk]
                else:
                    target = self_calls[sk] = _self_call(project, fi, model, cls, site.method, deps)
            elif site.receiver_kind == "super" and cls is not None and site.method:
                if not any(b.find_method(site.method) for b in cls.local_bases):
                    target = project.find_method(fi, cls.name, site.method, deps, skip_own=True)
            elif isinstance(e.func, cst.Name) and e.func.value in loop_vars and cls is not None:
                target = _attr_forward(project, fi, cls.name, loop_vars[e.func.value], deps)
            elif (isinstance(e.func, cst.Attribute) and cls is not None and site.method
                  and (_is_self_attr(facts, e.func.value)
                       or (isinstance(e.func.value, cst.Name) and e.func.value.value in loop_vars))):
                # self.sub.method(x) / item.method(x) for item in self.items
                v = e.func.value
                attr = v.attr.value if isinstance(v, cst.Attribute) else loop_vars[v.value]
                target = _attr_forward(project, fi, cls.name, attr, deps, method=site.method)
            elif site.qualname:
                q = site.qualname
                local = "." not in q and (q in model.module_functions or q in model.classes)
                if local or q in facts.local_funcs:
                    continue
                if "." not in q and q not in model.imports.names:
                    # a bare name: only a star import can bring it
                    if not fi.star:
                        continue
                    r = project.resolve_in(fi, [q], deps, 1)
                    if r is None or r[0].path == fi.path:
                        continue
                    q = f"{r[0].module}.{'.'.join(r[1])}"
                q = project.absolute(fi, q)
                if q.startswith(("torch.", "numpy.", "math.", "typing.", "builtins.")):
                    continue
                if site.method != "apply" and q.rsplit(".", 1)[-1][:1].isupper():
                    continue  # a constructor (ModelOutput(...), Block(...)): no export code runs there
                if site.method == "apply":
                    rc = project.resolve_class(q.rsplit(".", 1)[0], deps)
                    if rc is not None:
                        target = project.find_method(rc[0], rc[1], "forward", deps)
                        skip = 1  # ctx
                else:
                    target = project.resolve_function(q, deps)
            if target is None or target.path == fi.path:
                continue
            if skip == 0 and target.qual.endswith(".forward"):
                if forwards is not None:
                    forwards.append((facts, e, target))
                continue  # a module's forward is an export entry of its own file

            pos, kw = split_arg_kinds(e, site.arg_kinds, skip)
            if not _followed(pos + list(kw.values())):
                continue
            _mark_data_sized(model, facts, e, pos, kw, skip)
            key = site.qualname
            if cls is not None and site.receiver_kind == "self":
                key = f"{cls.name}.self.{site.method}"
            elif cls is not None and isinstance(e.func, cst.Attribute) and _is_self_attr(facts, e.func.value):
                key = f"{cls.name}.self.{e.func.value.attr.value}.{site.method}"
            out.append((facts, e, target, Root(target.qual, pos, kw), key))
    # instances of project classes: constructions and annotated parameters (semantics/objects.py)
    from exportlint.semantics.objects import class_refs

    out.extend(class_refs(project, fi, model, deps))
    return out


def forward_wrappers(project: Project, fi: FileIndex, model: Any, deps: set) -> list[tuple[Any, Any, Target, Root]]:
    """(forward's FunctionFacts, decorator node, decorator target, root) for each decorator of an
    analysed module ``forward`` that names a module function of another project file: the
    wrapper that function defines and returns runs in the forward's place with the forward's
    arguments (``Root(why="wrapper")``: the other file analyses that wrapper, ``self`` an
    object, the rest with the kinds the forward's parameters started with). Measured (torch
    2.13, bench/cases/pkg_longrope_decorator_update): a data-dependent branch in a helper
    the wrapper calls fails strict, non-strict and onnx-dynamo at the helper's line."""
    import libcst as cst

    from exportlint.semantics.imports import dotted
    from exportlint.semantics.kinds import UNKNOWN

    out = []
    for facts in model.functions:
        fn = facts.node
        if facts.cls is None or fn.name.value != "forward" or not fn.decorators:
            continue
        for d in fn.decorators:
            e = d.decorator
            if not isinstance(e, (cst.Name, cst.Attribute)):
                continue  # a decorator factory (`@deco(...)`): not followed
            q = dotted(e)
            if not q or q in model.module_functions or q in model.classes:
                continue  # (this file's own decorators: SemanticModel._forward_wrappers)
            if "." not in q and q not in model.imports.names:
                continue
            q = absolute = project.absolute(fi, model.imports.resolve(e) or q)
            if absolute.startswith(("torch.", "functools.", "typing.", "builtins.", "abc.")):
                continue
            t = project.resolve_function(q, deps)
            if t is None or t.path == fi.path or t.is_method:
                continue
            out.append((facts, e, t, Root(t.qual, [UNKNOWN] + list(facts.entry_pos), {}, why="wrapper")))
    return out


def _mark_data_sized(model: Any, facts: Any, call: Any, pos: list[str], kw: dict[str, str], skip: int) -> None:
    """The tensors a call hands over whose first dimension depends on data (semantics/data_sized.py)
    get the argument kind ``DATA_SIZED``."""
    from exportlint.semantics.kinds import DATA_SIZED, TENSORISH

    if not any(k in TENSORISH for k in pos + list(kw.values())):
        return
    from exportlint.semantics.data_sized import is_data_sized, names_at

    dds = names_at(model, facts, call)
    i = skip
    for a in call.args:
        if a.star:
            return
        if a.keyword is None:
            if pos[i] in TENSORISH and is_data_sized(facts, model, a.value, dds):
                pos[i] = DATA_SIZED
            i += 1
        elif kw.get(a.keyword.value) in TENSORISH and is_data_sized(facts, model, a.value, dds):
            kw[a.keyword.value] = DATA_SIZED


def _run_state(project: Project) -> Optional[dict]:
    """Per-run memo of the project files read with the stdlib ``ast`` (texts, digests, trees),
    shared by ``param_reads``, ``tensor_check_params`` and ``ctor_values``. A new set of run
    files (each run makes its own) starts it afresh, so an edited file is read again; None
    without a run (an editor's project: every call reads the text as it is then)."""
    if project.run_files is None:
        return None
    st = project.__dict__.get("_run_ast_state")
    if st is None or st["files"] is not project.run_files:
        st = {"files": project.run_files, "texts": {}, "digests": {}, "trees": {}, "checked": set()}
        project.__dict__["_run_ast_state"] = st
    return st


def file_text(project: Project, path: str) -> Optional[str]:
    """A project file's text: the project's own copy (an editor's buffer) or the file read as
    UTF-8 (errors replaced); None when it cannot be read. Read once per run."""
    ap = os.path.abspath(path)
    st = _run_state(project)
    if st is not None and ap in st["texts"]:
        return st["texts"][ap]
    text = project._texts.get(ap)
    if text is None:
        try:
            with open(ap, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            text = None
    if st is not None:
        st["texts"][ap] = text
    return text


def file_digest(project: Project, path: str) -> Optional[str]:
    """sha256 of ``file_text`` (None when unreadable): the key of caches that outlive a run.
    Hashed once per run and file."""
    ap = os.path.abspath(path)
    st = _run_state(project)
    if st is not None and ap in st["digests"]:
        return st["digests"][ap]
    text = file_text(project, ap)
    d = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() if text is not None else None
    if st is not None:
        st["digests"][ap] = d
    return d


def file_tree(project: Project, path: str, keep: bool = True) -> Optional[Any]:
    """The stdlib ``ast.Module`` of ``file_text`` (None: unreadable, or Python refuses it).
    Parsed once per run and file; shared, never to be changed. ``keep=False``, for a rule reading
    the file it lints: the tree lent by that file's syntax check (``lend_tree``) is answered
    without keeping it for the run (a kept tree is ~10x its text; keeping every tree one rule
    read took the peak memory of a timm run from 123 to 175 MB); other cases as ``keep=True``."""
    import ast

    ap = os.path.abspath(path)
    st = _run_state(project)
    if st is not None and ap in st["trees"]:
        return st["trees"][ap]
    from exportlint.isolation import python_limits

    text = file_text(project, ap)
    tree = None
    checked = False
    lent = st.get("lent") if st is not None else None
    if text is not None and lent is not None and lent[0] == ap and lent[1] == text:
        # the tree the engine's syntax check just parsed of this very text, the same way
        # (``lend_tree``): the same tree a parse here gives, without parsing the file again
        if not keep:
            return lent[2]
        tree = lent[2]
        checked = True
    elif text is not None:
        try:
            # first as the engine's syntax check parses (``engine._python_syntax_check``: under
            # Python's own limits), so that check can take this tree (``checked_tree``)
            with python_limits():
                tree = ast.parse(text, ap)
            checked = True
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            try:  # (as before: under the lint thread's limits)
                tree = ast.parse(text, ap)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                tree = None
    if st is not None:
        st["trees"][ap] = tree
        if checked:
            st["checked"].add(ap)
    return tree


def lend_tree(project: Project, path: str, text: str, tree: Any) -> None:
    """While one file is linted, the tree its syntax check parsed (``engine._python_syntax_check``:
    ``compile(text, ..., PyCF_ONLY_AST)`` under Python's own limits, what ``file_tree`` parses)
    answers ``file_tree`` for that file when the run's text of it is this very text, instead of a
    second parse of the whole file (a rule reading its own file's ``__init__`` statements, the
    constructor-value questions). ``tree`` None ends the loan. One file at a time: a lent tree
    is kept past the file's lint only when ``file_tree`` took it (as a tree it parses is)."""
    if project is None:
        return
    st = _run_state(project)
    if st is None:
        return
    if tree is None:
        st.pop("lent", None)
    else:
        st["lent"] = (os.path.abspath(path), text, tree)


def keep_lent(project: Project, path: str) -> None:
    """The tree lent for ``path`` stays the run's ``file_tree`` of it after its lint, as if
    ``file_tree`` had taken it: for a file whose analysis comes before the rules of files that
    read it (``engine._Light``), which would parse it again."""
    st = _run_state(project) if project is not None else None
    lent = st.get("lent") if st is not None else None
    ap = os.path.abspath(path)
    if lent is None or lent[0] != ap or ap in st["trees"] or file_text(project, ap) != lent[1]:
        return
    st["trees"][ap] = lent[2]
    st["checked"].add(ap)


def has_file_tree(project: Project, path: str) -> Optional[bool]:
    """Whether ``file_tree`` parsed the file in this run already (None: no run, nothing kept):
    a question about one statement of it may then take that tree instead of parsing the
    statement alone (``top_level_ast``)."""
    st = _run_state(project)
    return None if st is None else os.path.abspath(path) in st["trees"]


def checked_tree(project: Project, path: str, text: str) -> Optional[Any]:
    """The tree ``file_tree`` already parsed of this very text under Python's own limits, or
    None: the file's syntax check (``engine._python_syntax_check``, the same parse) then need
    not parse it again. Nothing is parsed here."""
    if project is None:
        return None
    ap = os.path.abspath(path)
    st = _run_state(project)
    if st is None or ap not in st["checked"] or st["texts"].get(ap) != text:
        return None
    return st["trees"].get(ap)


def run_memo(project: Project, name: str) -> dict:
    """A dict for one analysis' results that hold for the whole run (what a rule read from other
    files: the same for every file that asks); a fresh one without a run (an editor's project)."""
    st = _run_state(project)
    if st is None:
        return {}
    return st.setdefault("memo:" + name, {})


def may_define(project: Project, qa: str, words: Any) -> bool:
    """Whether the absolute name ``qa`` may be defined in one of the run's files whose text holds
    one of ``words`` (a module of such a file is a prefix of ``qa``): a name that cannot is not
    resolved (resolution indexes the files it passes through, before their own lint). Without a
    run, True (nothing known: resolve)."""
    if project.run_files is None:
        return True
    memo = run_memo(project, "mentioning")
    key = tuple(words)
    mods = memo.get(key)
    if mods is None:
        from exportlint.semantics.ctor_values import files_mentioning

        mods = set()
        for w in key:
            for p, _ in files_mentioning(project, w):
                m, is_pkg = project.add_file(p)
                mods.add(m)
        memo[key] = mods
    parts = qa.split(".")
    return any(".".join(parts[:i]) in mods for i in range(1, len(parts) + 1))


def index_of(project: Project, path: str) -> Optional[FileIndex]:
    """``project.index_path(path)``, once per run and file (``index_path`` reads and hashes the
    file's text at every call)."""
    memo = run_memo(project, "index_of")
    fi = memo.get(path)
    if fi is None:
        fi = memo[path] = project.index_path(path)
    return fi


def top_level_ast(project: Project, path: str, name: str) -> Optional[Any]:
    """The stdlib ``ast`` node of one top-level function, class or assignment of ``name`` in a
    project file, parsed from its span in the file's outline (``FileIndex.outline``) rather than
    the whole file: a rule reading one decorator or mapping of a large shared module (5k-line
    ``modeling_utils.py``) parses only that. Falls back to ``file_tree``. Memoised per run."""
    import ast

    ap = os.path.abspath(path)
    st = _run_state(project)
    memo = st.setdefault("top_level", {}) if st is not None else {}
    key = (ap, name)
    if key in memo:
        return memo[key]
    found = None
    fi = project.index_path(ap)
    text = file_text(project, ap)
    o = getattr(fi, "outline", None) if fi is not None else None
    spans: list[tuple[int, int]] = []
    if o is not None and text is not None:
        spans = [(f.start, f.end) for f in o.funcs if f.name == name and not f.is_method]
        if name in o.classes:
            methods, others = o.classes[name][0], o.classes[name][1]
            lines = [x for m in methods for x in (m.start, m.end)] + [x for a, b in others for x in (a, b)]
            if len(o.classes[name]) > 2 and o.classes[name][2]:
                lines += list(o.classes[name][2])
            if lines:
                spans.append((min(lines), max(lines)))
        spans += [(a, b) for names, a, b in o.assigns if name in names]
    if spans and text is not None:
        all_lines = text.splitlines(keepends=True)
        a, b = max(spans)  # the last binding of the name
        try:
            mod = ast.parse("".join(all_lines[a - 1:b]))
            found = next((n for n in mod.body if getattr(n, "name", None) == name or any(
                isinstance(t, ast.Name) and t.id == name
                for t in (n.targets if isinstance(n, ast.Assign) else [getattr(n, "target", None)]))), None)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            found = None
    if found is None:
        tree = file_tree(project, ap)
        for n in tree.body if tree is not None else ():
            tgts = n.targets if isinstance(n, ast.Assign) else [getattr(n, "target", None)]
            if getattr(n, "name", None) == name or any(isinstance(t, ast.Name) and t.id == name for t in tgts):
                found = n
    memo[key] = found
    return found


#: (path, digest, function) -> (positional parameters, those read as objects)
_PARAM_READS: dict[tuple[str, str, str], Optional[tuple[list[str], set]]] = {}


def param_reads(project: Project, fi: FileIndex, qual: str, deps: Optional[set] = None
                ) -> Optional[tuple[list[str], set]]:
    """For ``qual`` (read in ``fi``) naming a module-level function of another project file:
    its positional parameters and those whose attributes or methods it reads
    (``length.item()``), read with the stdlib ``ast`` from that function alone; None otherwise."""
    import ast

    t = project.resolve_function(project.absolute(fi, qual), deps)
    if t is None or t.path == fi.path or t.is_method:
        return None
    digest = file_digest(project, t.path)
    if digest is None:
        return None
    key = (t.path, digest, t.qual)
    if key in _PARAM_READS:
        return _PARAM_READS[key]
    if len(_PARAM_READS) > 4096:
        _PARAM_READS.clear()
    out = None
    tree = file_tree(project, t.path)
    for st in tree.body if tree is not None else ():
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) and st.name == t.qual:
            ps = [a.arg for a in list(st.args.posonlyargs) + list(st.args.args)]
            reads = {n.value.id for n in ast.walk(st) if isinstance(n, ast.Attribute)
                     and isinstance(n.value, ast.Name) and n.attr not in ("index", "count")}
            out = (ps, reads & set(ps))
    _PARAM_READS[key] = out
    if deps is not None:
        deps.add(t.path)
    return out


#: checks whose tensor condition lowers to ``aten._is_all_true`` (rules/op_support.json records them)
TENSOR_CHECKS = ("torch._check_tensor_all", "torch._check_tensor_all_with")
#: (path, digest, function) -> {parameter index: (check API, guarded by isinstance(param, torch.Tensor))}
_TENSOR_CHECKS: dict[tuple[str, str, str], dict[int, tuple[str, bool, int]]] = {}


def tensor_check_params(project: Project, t: Target, deps: Optional[set] = None) -> dict[int, tuple[str, bool, int]]:
    """For a module-level function ``t`` of a project file: the positional parameters it hands,
    as they are, as the condition of ``torch._check_tensor_all(cond, ...)`` /
    ``torch._check_tensor_all_with(exc, cond, ...)`` -> (that API, whether the check sits under
    ``if isinstance(param, torch.Tensor):``, the check's line). Only checks at the function's top
    level or directly under that ``isinstance`` test count (any other condition: unknown, left
    out). Read with the stdlib ``ast``."""
    import ast

    if t.is_method:
        return {}
    digest = file_digest(project, t.path)
    if digest is None:
        return {}
    key = (t.path, digest, t.qual)
    got = _TENSOR_CHECKS.get(key)
    if got is not None:
        return got
    if len(_TENSOR_CHECKS) > 4096:
        _TENSOR_CHECKS.clear()
    out: dict[int, tuple[str, bool, int]] = {}
    fi = project.index_path(t.path)
    imports = fi.imports if fi is not None else {}
    tree = file_tree(project, t.path)

    def qual(e: ast.AST) -> Optional[str]:
        return ast_qualname(imports, e)

    def is_env_test(e: ast.AST) -> bool:
        # `if os.getenv("X_DISABLE_CHECK", "0") == "1": return`: a switch of the environment,
        # off by default (the run is judged in the default environment)
        return any(isinstance(n, ast.Call) and qual(n.func) in ("os.getenv", "os.environ.get")
                   or isinstance(n, ast.Attribute) and qual(n) == "os.environ" for n in ast.walk(e))

    def may_exit(st: ast.AST) -> bool:
        # a `return` / `raise` of this function (not of a nested def, lambda or class)
        stack = [st]
        while stack:
            n = stack.pop()
            if isinstance(n, (ast.Return, ast.Raise)):
                return True
            stack.extend(c for c in ast.iter_child_nodes(n)
                         if not isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)))
        return False

    def scan(body: list, params: list[str], guarded_param: Optional[str], found: dict) -> None:
        skipped: Optional[set] = set()  # params whose later checks an earlier exit may skip (None: all)
        for st in body:
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                c = st.value
                q = qual(c.func)
                if q in TENSOR_CHECKS and not any(isinstance(a, ast.Starred) for a in c.args):
                    i = 1 if q.endswith("_with") else 0
                    cond = c.args[i] if len(c.args) > i else next(
                        (k.value for k in c.keywords if k.arg == "cond"), None)
                    if isinstance(cond, ast.Name) and cond.id in params and skipped is not None \
                            and cond.id not in skipped:
                        if guarded_param is None or guarded_param == cond.id:
                            found.setdefault(params.index(cond.id), (q, guarded_param is not None, c.lineno))
                continue
            exits = may_exit(st)
            if isinstance(st, ast.If) and guarded_param is None:
                tst = st.test
                if (isinstance(tst, ast.Call) and isinstance(tst.func, ast.Name) and tst.func.id == "isinstance"
                        and len(tst.args) == 2 and isinstance(tst.args[0], ast.Name)
                        and tst.args[0].id in params and qual(tst.args[1]) == "torch.Tensor"):
                    if not exits and skipped is not None and tst.args[0].id not in skipped:
                        scan(st.body, params, tst.args[0].id, found)
                    continue
                if exits and is_env_test(tst) and not st.orelse:
                    continue
                if exits and not st.orelse:
                    # an early branch that may return: later checks count only for the params
                    # it checks too (`if is_tracing(): torch._check_tensor_all(cond); return`)
                    sub: dict = {}
                    scan(st.body, params, None, sub)
                    if skipped is not None:
                        skipped |= {p for j, p in enumerate(params) if j not in sub}
                    for j, v in sub.items():
                        found.setdefault(j, v)
                    continue
            if exits:
                skipped = None

    for st in tree.body if tree is not None else ():
        if isinstance(st, ast.FunctionDef) and st.name == t.qual:
            ps = [a.arg for a in list(st.args.posonlyargs) + list(st.args.args)]
            scan(st.body, ps, None, out)
    _TENSOR_CHECKS[key] = out
    if deps is not None:
        deps.add(t.path)
    return out


def return_kind(facts: Any) -> Optional[str]:
    """The join of the kinds a function returns (None for generators or when unknown)."""
    import libcst as cst

    from exportlint.semantics.kinds import NONE, UNKNOWN, join
    from exportlint.semantics.model import child_nodes

    kinds: list[str] = []
    stack = list(child_nodes(facts.node.body))
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.FunctionDef or t is cst.ClassDef or t is cst.Lambda:
            continue
        if t is cst.Yield:
            return None
        if t is cst.Return:
            kinds.append(facts.kind(n.value) if n.value is not None else NONE)
            continue
        stack.extend(child_nodes(n))
    if not kinds:
        return None
    k = kinds[0]
    for x in kinds[1:]:
        k = join(k, x)
    return None if k == UNKNOWN else k


def _self_call(project: Project, fi: FileIndex, model: Any, cls: Any, method: str, deps: set) -> Optional[Target]:
    fact = cls.find_attr(method)
    if fact is not None:
        if fact.what == "submodule" and model.submodule_class(fact) is None:
            return _attr_forward(project, fi, cls.name, method, deps)
        return None
    if cls.find_method(method) is not None:
        return None  # in this file: the model follows it
    t = project.find_method(fi, cls.name, method, deps)
    if t is not None:
        return t
    # self.sub(x) where self.sub is set in a base class's __init__ (another file)
    return _attr_forward(project, fi, cls.name, method, deps)


def _attr_forward(project: Project, fi: FileIndex, cls: str, attr: str, deps: set, _depth: int = 0,
                  method: str = "forward") -> Optional[Target]:
    """``method`` (forward) of the class that ``self.<attr>`` is built from (one class for
    ``nn.ModuleList`` / ``nn.Sequential`` items)."""
    ci = fi.classes.get(cls)
    if ci is None or _depth > _MAX_DEPTH:
        return None
    ctors = ci.attrs.get(attr)
    if ctors is None:
        for b in ci.bases:
            bc = project.base_class(fi, b, deps)
            if bc is not None:
                r = _attr_forward(project, bc[0], bc[1], attr, deps, _depth + 1, method)
                if r is not None:
                    return r
        return None
    if len(set(ctors)) != 1:
        return None
    if method == "forward" and ctors[0].startswith("@"):
        # the forward of a class handed to the constructor: an export entry of its own file, not
        # followed from here (``cross_file_calls``); resolving the class (``ctor_classes``: a scan
        # of the run's constructions) is left to what follows its other methods and to the rules
        return None
    got = built_classes(project, fi, ctors[0], deps)
    if got is None or len(got) != 1:
        return None  # several classes (or none known): unknown
    rc = got[0]
    return project.find_method(rc[0], rc[1], method, deps)


def built_classes(project: Project, fi: FileIndex, q: str, deps: Optional[set]) -> Optional[list[tuple[FileIndex, str]]]:
    """The project classes an ``__init__`` constructor record of ``fi`` (``ClassInfo.attrs``)
    builds: the class it names; else, for a project helper function, the classes of what it
    returns (``helper_returns``: ``return Block(...)``, ``return nn.Sequential(*[Block(...) for
    ...])``); for ``*helper`` (``nn.Sequential(*make_layers(cfg))``), the classes of the items of
    the list the helper returns (``helper_items``). None when unknown (a class the helper was
    handed, anything else); distinct (file, class) pairs in the order found."""
    # (memoised per run by the absolute name: the same helper is named by many files)
    memo = run_memo(project, "built_classes")
    key = (fi.path, q) if "." not in q or q.startswith("@") else project.absolute(fi, q)
    hit = memo.get(key)
    if hit is None:
        read: set = set()
        hit = memo[key] = (_built_classes(project, fi, q, read), frozenset(read))
    if deps is not None:
        deps.update(hit[1])
    return hit[0]


def _built_classes(project: Project, fi: FileIndex, q: str, deps: set) -> Optional[list[tuple[FileIndex, str]]]:
    if q.startswith("@"):
        # a class handed to the constructor (``self.x = block(...)``): the one class every
        # construction of the module passes (several, or any unknown: unknown)
        from exportlint.semantics.ctor_classes import param_classes

        cls, _, param = q[1:].partition(".")
        got = param_classes(project, fi, cls, param, deps)
        return [got[0]] if got is not None and len(got) == 1 else None
    star = q.startswith("*")
    if star:
        q = q[1:]
    else:
        rc = project.base_class(fi, q, deps) if "." not in q else project.resolve_class(project.absolute(fi, q), deps)
        if rc is not None:
            return [rc]
        if q.startswith(("torch.", "builtins.")) or q.rsplit(".", 1)[-1][:1].isupper():
            return None
    got = helper_items(project, fi.path, q, deps) if star else helper_returns(project, fi.path, q, deps)
    if not got:
        return None
    out: list = []
    for hpath, call, cq, _fn in got:
        hfi = index_of(project, hpath)
        if hfi is None:
            return None
        # what the helper returns, one of which is built (a list's items: each is built)
        alone = star or cq not in _CONTAINERS
        if not alone:
            items = _container_items(project, hpath, call, _fn, deps)
            if items is None:
                return None
        else:
            items = [(hpath, call, cq, _fn)]
        for ipath, _c, iq, _f in items:
            ifi = index_of(project, ipath)
            rc = None
            if ifi is not None:
                rc = project.base_class(ifi, iq, deps) if "." not in iq else project.resolve_class(
                    project.absolute(ifi, iq), deps)
            if rc is None:
                if iq.startswith("torch.") and (not alone or star):
                    continue  # a torch module among the items (an activation, a norm)
                return None  # (an alternative of no project class: which one is built is unknown)
            if all(rc[0].path != o[0].path or rc[1] != o[1] for o in out):
                out.append(rc)
                if alone and not star and len(out) > 1:
                    return None  # two classes the helper may return: which one is built is unknown
    return out


# ---------------------------------------------------------------------------------------
# modules built by helper functions (``self.rnn = make_lstm(...)``, ``nn.Sequential(*make_layers(cfg))``)
# ---------------------------------------------------------------------------------------

#: how deep a helper's returned call of another project helper is followed
_HELPER_DEPTH = 3


def helper_returns(project: Project, path: str, qual: str, deps: Optional[set] = None,
                   _depth: int = 0) -> Optional[list[tuple[str, Any, str]]]:
    """What the project function ``qual`` returns, when it returns only calls: ``qual`` is a
    callee as the file ``path`` reads it (its import map's name: ``.layers.make_lstm``, or a
    module-level function of ``path`` itself). [(the helper's file, the returned stdlib ``ast``
    Call, its callee's qualified name through that file's imports)] for every ``return`` of it
    (``return nn.LSTM(...)``; a local bound only to calls, ``layer = Block(...); return layer``;
    either arm of a conditional), a returned call of another project helper followed in its
    place (depth 3). None when ``qual`` is no project function or some return is anything else
    (a parameter, a loop variable, a container): unknown stays unknown. Read with the stdlib
    ``ast``, the function alone from its span (``ctor_args``' per-run sites); memoised per run."""
    if _depth > _HELPER_DEPTH:
        return None
    return _helper_memo(project, path, qual, deps, "helper_returns",
                        lambda t, read: _returned_calls(project, t, read, _depth))


def _helper_memo(project: Project, path: str, qual: str, deps: Optional[set], name: str,
                 compute: Callable[[Target, set], Optional[list]]) -> Optional[list]:
    """``compute(target, read)`` for the module-level project function ``qual`` as the file
    ``path`` reads it (``helper_returns``, ``helper_items``): a bare name is this file's own
    function (any other is a parameter or a local: `norm_layer(dim)`, a class the code was
    handed, never resolved), a dotted one resolved through the project. None when it is no
    such function. Memoised per run under ``name``; the files read go into ``deps``, also on
    a memoised answer; a helper reached again while its answer is computed is unknown."""
    fi = index_of(project, path)
    if fi is None or not qual:
        return None
    memo = run_memo(project, name)
    key = (fi.path, qual) if "." not in qual else project.absolute(fi, qual)
    if key in memo:
        got, read = memo[key]
        if deps is not None:
            deps.update(read)
        return got
    memo[key] = (None, frozenset())  # (a helper returning its own call: unknown)
    read: set = set()
    if "." not in qual:
        t: Optional[Target] = Target(fi.path, fi.module, qual, False) if qual in fi.functions else None
    else:
        t = project.resolve_function(project.absolute(fi, qual), read)
    got = compute(t, read) if t is not None and not t.is_method else None
    memo[key] = (got, frozenset(read))
    if deps is not None:
        deps.update(read)
    return got


def _helper_function(project: Project, t: Target, deps: Optional[set]) -> Optional[tuple]:
    """(the file's per-run sites, the function's stdlib ``ast``, the file's index, its return
    values) of the module-level function ``t``, or None (no ``return`` with a value)."""
    import ast

    from exportlint.semantics.ctor_args import function_sites

    got = function_sites(project, t.path, t.qual)
    hfi = index_of(project, t.path)
    if got is None or hfi is None:
        return None
    fs, fn = got
    if deps is not None:
        deps.add(t.path)
    rets: list = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, ast.Return):
                rets.append(child.value)
            walk(child)

    walk(fn)
    return (fs, fn, hfi, rets) if rets and all(r is not None for r in rets) else None


def _returned_calls(project: Project, t: Target, deps: Optional[set], depth: int) -> Optional[list]:
    got = _helper_function(project, t, deps)
    if got is None:
        return None
    fs, fn, hfi, rets = got
    return _calls_of(project, t, fs, fn, hfi, rets, deps, depth)


def helper_items(project: Project, path: str, qual: str, deps: Optional[set] = None) -> Optional[list]:
    """As ``helper_returns``, for a helper that returns a list of modules (``layers = [];
    layers.append(Block(...)); return layers``, ``return [Block(...) for ...]``): the calls that
    build its items. None when unknown."""
    return _helper_memo(project, path, qual, deps, "helper_items", lambda t, read: _built_items(project, t, read))


def _built_items(project: Project, t: Target, read: set) -> Optional[list]:
    h = _helper_function(project, t, read)
    if h is None:
        return None
    fs, fn, hfi, rets = h
    items: list = []
    for r in rets:
        it = _list_items(fs, fn, r)
        if it is None:
            return None
        items.extend(it)
    return _calls_of(project, t, fs, fn, hfi, items, read, 0) if items else None


def _list_items(fs: Any, fn: Any, e: Any, depth: int = 0) -> Optional[list]:
    """The item expressions of a list of modules ``e`` (read in function ``fn``): a list or tuple
    display (a starred item's own items), a comprehension's element, a local bound only to such
    displays and grown only by ``.append(x)`` / ``.extend([...])``; None otherwise."""
    import ast

    if depth > 4:
        return None
    if isinstance(e, (ast.List, ast.Tuple)):
        out: list = []
        for el in e.elts:
            if isinstance(el, ast.Starred):
                sub = _list_items(fs, fn, el.value, depth + 1)
                if sub is None:
                    return None
                out.extend(sub)
            else:
                out.append(el)
        return out
    if isinstance(e, (ast.ListComp, ast.GeneratorExp)):
        return [e.elt]
    if isinstance(e, ast.Name):
        vals = fs.assigns(fn).get(e.id)
        if not vals or any(v is None for v in vals):
            return None
        out = []
        for v in vals:
            sub = _list_items(fs, fn, v, depth + 1)
            if sub is None:
                return None
            out.extend(sub)
        for n in ast.walk(fn):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                    and n.func.value.id == e.id):
                if n.func.attr == "append" and len(n.args) == 1 and not n.keywords:
                    out.append(n.args[0])
                elif n.func.attr == "extend" and len(n.args) == 1:
                    sub = _list_items(fs, fn, n.args[0], depth + 1)
                    if sub is None:
                        return None
                    out.extend(sub)
                elif n.func.attr in ("insert", "__setitem__", "__iadd__"):
                    return None
        return out
    return None


def _container_items(project: Project, hpath: str, call: Any, fname: str, deps: Optional[set]) -> Optional[list]:
    """(path, Call, qualified callee, function) of the items of ``nn.Sequential(...)`` /
    ``nn.ModuleList([...])`` (a call the helper ``fname`` of ``hpath`` returns); None when unknown."""
    import ast

    from exportlint.semantics.ctor_args import function_sites

    got = function_sites(project, hpath, fname)
    hfi = index_of(project, hpath)
    if got is None or hfi is None or call.keywords:
        return None
    fs, fn = got
    items: list = []
    for a in call.args:
        if isinstance(a, ast.Starred):
            sub = _list_items(fs, fn, a.value)
        elif isinstance(a, (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp)):
            sub = _list_items(fs, fn, a)
        else:
            sub = [a]
        if sub is None:
            return None
        items.extend(sub)
    if not items:
        return None
    t = Target(hpath, hfi.module, fname, False)
    return _calls_of(project, t, fs, fn, hfi, items, deps, 0)


#: module containers whose items ``built_classes`` reads
_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.modules.container.Sequential", "torch.nn.ModuleList",
                         "torch.nn.modules.container.ModuleList"})


def _calls_of(project: Project, t: Target, fs: Any, fn: Any, hfi: FileIndex, exprs: list, deps: Optional[set],
              depth: int) -> Optional[list]:
    """(path, Call, qualified callee, function name) of the calls ``exprs`` (read in function ``fn``
    of ``t``'s file) evaluate to: through locals bound only to calls, either arm of a conditional,
    and project helpers' returns (``helper_returns``); None when one is anything else."""
    import ast

    from exportlint.semantics.index import ast_dotted, ast_qualname

    assigns = fs.assigns(fn)
    params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
    out: list = []
    todo = list(exprs)
    seen: set = set()
    while todo:
        if len(out) > 8:
            return None
        e = todo.pop(0)
        if isinstance(e, ast.IfExp):
            todo[:0] = [e.body, e.orelse]
            continue
        if isinstance(e, ast.Name):
            vals = assigns.get(e.id)
            if not vals or e.id in seen or any(v is None for v in vals):
                return None  # a parameter, or a name bound another way
            seen.add(e.id)
            todo[:0] = list(vals)
            continue
        if not isinstance(e, ast.Call):
            return None
        d = ast_dotted(e.func)
        if d is None:
            return None
        head = d.partition(".")[0]
        if head in assigns or head in params:
            return None  # `block_fn(...)`: a class the helper was handed
        q = ast_qualname(hfi.imports, e.func) or d
        if "." not in d and d in hfi.functions:
            sub = helper_returns(project, t.path, d, deps, depth + 1)
        elif head in hfi.imports and not q.startswith(("torch.", "builtins.")) and not q.rsplit(".", 1)[-1][:1].isupper():
            sub = helper_returns(project, t.path, q, deps, depth + 1)
        else:
            out.append((t.path, e, q, t.qual))
            continue
        if sub is None:
            return None
        out.extend(sub)
    return out


def helper_module_ctors(project: Project, path: str, qual: str, deps: Optional[set] = None,
                        want: Any = None) -> list[tuple[Any, str]]:
    """(libcst Call, qualified constructor name) of each module construction the project helper
    ``qual`` (read in ``path``, see ``helper_returns``) returns: the rules that read a
    submodule's constructor (``checks.common.torch_submodule_calls``) read these for
    ``self.rnn = make_lstm(...)``. The arguments are the helper's own expressions: a parameter
    of the helper stays a name (unknown), a literal is a literal. Empty when unknown. ``deps``
    gets the files read. ``want``: only constructions of these qualified names are parsed (with
    libcst); when another one is returned, empty."""
    if want is not None:
        # (the helper's file must name one of them before the helper is parsed, or resolved)
        fi0 = index_of(project, path)
        names = run_memo(project, "want_names")
        wn = names.get(id(want))
        if wn is None or wn[0] is not want:
            wn = names[id(want)] = (want, tuple(sorted({w.rsplit(".", 1)[-1] for w in want})))
        if fi0 is None or ("." in qual and not may_define(project, project.absolute(fi0, qual), wn[1])):
            return []
        hp = helper_file(project, path, qual, deps)
        text = file_text(project, hp) if hp is not None else None
        if text is None:
            return []
        words = run_memo(project, "helper_words")
        wk = (hp, id(want))
        if wk not in words:
            words[wk] = (want, any(w.rsplit(".", 1)[-1] in text for w in want))
        if not words[wk][1]:
            return []
    got = helper_returns(project, path, qual, deps)
    if not got or (want is not None and any(q not in want for _, _, q, _ in got)):
        return []
    memo = run_memo(project, "helper_ctors")
    # (the same for every ``want``: it is all or nothing)
    fi = index_of(project, path)
    key = (fi.path, qual) if fi is None or "." not in qual else project.absolute(fi, qual)
    if key in memo:
        return memo[key]
    from exportlint.lightcst import parse_expression
    from exportlint.semantics.ctor_args import source_of

    out = []
    for hpath, call, q, _fn in got:
        text = source_of(project, hpath, call)
        if text is None:
            out = []
            break
        try:
            node = parse_expression(text)
        except Exception:
            out = []
            break
        out.append((node, q))
    memo[key] = out
    return out


def helper_file(project: Project, path: str, qual: str, deps: Optional[set] = None) -> Optional[str]:
    """The file defining the module-level project function ``qual`` (read in ``path``, as for
    ``helper_returns``), or None; nothing of it is parsed (resolution through the indexes).
    ``deps`` gets the files the resolution read."""
    fi = index_of(project, path)
    if fi is None or not qual:
        return None
    if "." not in qual:
        return fi.path if qual in fi.functions else None
    memo = run_memo(project, "helper_file")
    key = project.absolute(fi, qual)
    if key not in memo:
        read: set = set()
        t = project.resolve_function(project.absolute(fi, qual), read)
        memo[key] = (t.path if t is not None and not t.is_method else None, frozenset(read))
    if deps is not None:
        deps.update(memo[key][1])
    return memo[key][0]
