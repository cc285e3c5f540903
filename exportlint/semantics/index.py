"""Per-file facts for the project index, read with the stdlib ``ast`` (no libcst).

One ``FileIndex`` per file and content: its imports (made absolute), star imports and
``__all__``, top-level functions, classes (bases, methods, ``self.x = Ctor(...)`` attributes
of ``__init__``), whether it defines a ``forward``, and its export calls with the facts the
project context needs (opsets, dynamic dims). ``ast.parse`` costs a fraction of a libcst
parse; the index is cached by (module name, content hash).
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Optional

#: qualified names of the exporter entry points (kept in step with model.EXPORT_APIS)
EXPORT_APIS = frozenset(
    {
        "torch.onnx.export", "torch.onnx.dynamo_export", "torch.export.export", "torch.export.export_for_training",
        "torch.export.export_for_inference", "torch.export.draft_export", "torch.jit.trace", "torch.jit.trace_module",
        "torch._dynamo.export",
    }
)


@dataclass
class ClassInfo:
    name: str
    line: int
    #: bases as written, resolved through the file's imports (absolute) or local names
    bases: list[str]
    methods: dict[str, int] = field(default_factory=dict)
    #: self.<attr> = Ctor(...) in __init__: attr -> qualified constructor names (the element
    #: classes for nn.ModuleList / nn.Sequential)
    attrs: dict[str, list[str]] = field(default_factory=dict)


#: ExportFacts.dynamic key of a declaration whose class is in another module: "rank:i=r", the
#: rank of the i-th example input (``Project.export_facts`` moves it to that forward parameter)
RANKS_KEY = "@ranks"


@dataclass
class ExportFacts:
    api: str
    line: int
    #: the model expression's name (``Model`` for ``Model(...)``, a function, a variable)
    model: Optional[str]
    #: the class the model was built from when the file says (``m = Model(); export(m, ...)``)
    model_class: Optional[str]
    opset: Optional[int]
    #: parameter (or input) name -> dims declared dynamic ("*": not known statically)
    dynamic: dict[str, set] = field(default_factory=dict)
    declares_dynamic: bool = False
    #: ``input_names=[...]`` when literal (maps dynamic_axes to forward parameters)
    input_names: Optional[list[str]] = None


@dataclass
class FileIndex:
    path: str
    module: str
    is_package: bool
    digest: str
    ok: bool = True  # False: ast could not parse it
    imports: dict[str, str] = field(default_factory=dict)
    star: list[str] = field(default_factory=list)
    all: Optional[list[str]] = None
    functions: dict[str, int] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    export_calls: list[ExportFacts] = field(default_factory=list)
    has_forward: bool = False
    #: top-level names bound by plain assignments
    assigned: set = field(default_factory=set)
    #: spans of functions, classes and assignments (``semantics.reduce``)
    outline: Any = None
    #: ``func`` / ``Class.method`` -> its decorators: [qualified name (through the imports),
    #: called?, first literal str argument or None, ``recursive=False`` given?] (semantics/decorated.py)
    decorators: dict[str, list] = field(default_factory=dict)
    #: fake (meta) kernels registered at module level: "ns::op" names and qualified names of
    #: the custom-op functions whose ``.register_fake`` is used (semantics/decorated.py)
    fakes: set = field(default_factory=set)
    #: custom ops this file defines at module level, "ns::op": ``@torch.library.custom_op("ns::op")``,
    #: ``torch.library.define("ns::op", ...)``, ``lib.define("op(...)")`` on a ``torch.library.Library("ns", ...)``
    ops: set = field(default_factory=set)

    def package(self) -> str:
        return self.module if self.is_package else self.module.rpartition(".")[0]

    def exports_name(self, name: str) -> bool:
        """Is ``name`` bound by ``from <this> import *``?"""
        if self.all is not None:
            return name in self.all
        return not name.startswith("_") and (
            name in self.functions or name in self.classes or name in self.imports or name in self.assigned
        )

    def defines(self, name: str) -> bool:
        return name in self.functions or name in self.classes


def _param_call(e: ast.AST, params: set) -> bool:
    """A call of one of ``params`` (``block(...)``)."""
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in params


def absolute(module_pkg: str, level: int, name: Optional[str]) -> str:
    """Absolute module name of ``from <dots><name> import`` inside package ``module_pkg``."""
    if level == 0:
        return name or ""
    parts = module_pkg.split(".") if module_pkg else []
    if level - 1 > 0:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    base = ".".join(parts)
    if name:
        return f"{base}.{name}" if base else name
    return base


def try_torch_imports(before: dict[str, str], after: dict[str, str]) -> dict[str, str]:
    """The names a ``try:`` body binds to a ``torch`` name (``from torch.nn.functional import
    rms_norm``): they keep that binding over a fallback its ``except ImportError:`` handler binds
    (``from .fast_norm import rms_norm``), as at run time with the torch the project exports with
    (the fallback serves older torch releases). Measured: timm's ``RmsNormFp32`` calls the
    ``rms_norm`` bound so, and the legacy exporter fails there on ``aten::rms_norm``."""
    return {k: v for k, v in after.items() if before.get(k) != v and (v == "torch" or v.startswith("torch."))}


def ast_dotted(e: ast.AST) -> Optional[str]:
    """``a.b.c`` of a stdlib-ast Name/Attribute chain; None for anything else."""
    parts = []
    while isinstance(e, ast.Attribute):
        parts.append(e.attr)
        e = e.value
    if isinstance(e, ast.Name):
        parts.append(e.id)
        return ".".join(reversed(parts))
    return None


def _resolve(imports: dict[str, str], d: Optional[str]) -> Optional[str]:
    if d is None:
        return None
    head, _, rest = d.partition(".")
    q = imports.get(head)
    if q is None:
        return d
    return f"{q}.{rest}" if rest else q


def ast_qualname(imports: dict[str, str], e: ast.AST) -> Optional[str]:
    """The qualified name of a stdlib-ast Name/Attribute chain through a file's import map
    (``nn.Linear`` -> ``torch.nn.Linear``; an unimported head is kept as written); None for
    anything else."""
    return _resolve(imports, ast_dotted(e))


def _literal(e: Optional[ast.AST]):
    if e is None:
        return None
    try:
        return ast.literal_eval(e)
    except Exception:
        return _MISSING


_MISSING = object()

_CACHE: dict[tuple[str, str, str], FileIndex] = {}


def index_source(text: str, path: str, module: str, is_package: bool, digest: Optional[str] = None,
                 tree: Optional[ast.Module] = None) -> FileIndex:
    digest = digest or hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    key = (path, module, digest)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    if len(_CACHE) > 8192:  # long sessions (the language server): start over
        _CACHE.clear()
    fi = FileIndex(path, module, is_package, digest)
    ends = None
    code = None
    docs: list = []
    whole = None
    may_export = _may_export(text)
    if tree is None:
        from exportlint.semantics.reduce import skeleton_and_docs

        # function bodies (but __init__) hold nothing the index needs: parse without them,
        # unless the file calls an exporter (export calls may sit in any function)
        src = text
        code = None
        if not may_export:
            from exportlint.semantics.reduce import code_lines

            code = code_lines(text)
            src, ends, docs = skeleton_and_docs(text, code)
        try:
            tree = ast.parse(src, path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            try:
                tree = ast.parse(text, path) if src is not text else None
                ends, docs = None, []  # the scan went wrong somewhere: trust only the tree
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                tree = None
            if tree is None:
                fi.ok = False
                _CACHE[key] = fi
                return fi
    elif not may_export:
        from exportlint.semantics.reduce import code_lines, docs_of_tree

        # what the skeleton path finds, read from the whole tree
        code = code_lines(text)
        docs = docs_of_tree(tree, text)
        whole = code
    _Indexer(fi).run(tree, text, ends, may_export, whole)
    if fi.outline is not None and fi.has_forward:
        fi.outline.code = code
        fi.outline.docs = docs
    _CACHE[key] = fi
    return fi


def _may_export(text: str) -> bool:
    return has_export_call(text)


_FORWARD_RE = re.compile(r"\bdef\s+forward\b")
_EXPORT_CALL_RE = re.compile(r"\b(?:export|trace|trace_module|dynamo_export|draft_export|export_for_training|export_for_inference)\s*\(")
_DEF_FORWARD = re.compile(r"def\s+forward\b")
_IS_WORD = re.compile(r"\w")


def has_forward_def(text: str) -> bool:
    """``_FORWARD_RE.search(text) is not None``, faster: without the leading ``\b`` the
    pattern starts with a literal ``re`` scans for; the boundary is checked at each hit (no
    match of it can hide another: ``def``, blanks and ``forward`` do not overlap)."""
    global _FORWARD_LAST
    last = _FORWARD_LAST
    if last[0] is text:  # (the engine, then the index, ask of the same text)
        return last[1]
    found = "forward" in text and at_word_start(_DEF_FORWARD, text)
    _FORWARD_LAST = (text, found)
    return found


#: (text, answer) of the last ``has_forward_def``
_FORWARD_LAST: tuple = (None, False)


def at_word_start(rx: "re.Pattern[str]", text: str) -> bool:
    """Is there a match of ``rx`` not preceded by a word character (``\b`` + rx, for an rx
    that starts with a word character and whose matches cannot overlap one another)?"""
    for m in rx.finditer(text):
        j = m.start()
        if j == 0 or not _IS_WORD.match(text, j - 1):
            return True
    return False


def has_export_call(text: str) -> bool:
    """``_EXPORT_CALL_RE.search(text) is not None``, 4-8x faster on big files: a pattern that
    starts with ``\b`` and an alternation makes ``re`` try every position, so the literal
    ``export``/``trace`` is found first and the pattern is tried only at the start of the
    identifier holding it (every match is at such a start: its names are all word
    characters)."""
    global _EXPORT_LAST
    last = _EXPORT_LAST
    if last[0] is text:  # (the engine, the index and the project facts ask of the same text)
        return last[1]
    found = _has_export_call(text)
    _EXPORT_LAST = (text, found)
    return found


#: (text, answer) of the last ``has_export_call``
_EXPORT_LAST: tuple = (None, False)


def _has_export_call(text: str) -> bool:
    if "export" not in text and "trace" not in text:
        return False
    seen = -1
    for i in _word_hits(text):
        j = i
        while j > 0 and _IS_WORD.match(text, j - 1):
            j -= 1
        if j != seen:
            seen = j
            if _EXPORT_CALL_RE.match(text, j):
                return True
    return False


def _word_hits(text: str) -> list[int]:
    """The positions of ``export`` and ``trace`` in ``text``, in order: the starts of the
    matches of ``re.finditer("export|trace", text)``, plus those of an occurrence overlapping one of them
    (``exportrace``), which lies in the same identifier (``_has_export_call`` tests each
    identifier's start once). ``str.find`` instead of the regex, whose scan tries the pattern
    at every ``e`` and ``t`` of the text (a fifth of the worker's regex time on timm)."""
    out: list[int] = []
    for word in ("export", "trace"):
        i = text.find(word)
        while i >= 0:
            out.append(i)
            i = text.find(word, i + 1)
    out.sort()
    return out


class _Indexer:
    def __init__(self, fi: FileIndex) -> None:
        self.fi = fi
        self.pkg = fi.package()
        #: module-level ``torch.library.Library("ns", ...)`` objects: name -> namespace
        self._libs: dict[str, str] = {}

    def run(self, tree: ast.Module, text: str, ends: Optional[dict] = None, may_export: Optional[bool] = None,
            whole: Optional[list] = None) -> None:
        from exportlint.semantics.reduce import outline, split_lines

        self._top(tree.body)
        self._dim_vars = _dim_vars(tree) if "Dim" in text else {}
        self.fi.has_forward = has_forward_def(text)
        if may_export if may_export is not None else _may_export(text):
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    self._maybe_export(node)
            # export calls: model class of `m = Model(...)` in the same scope
            if self.fi.export_calls:
                self._export_model_classes(tree)
        if not self.fi.export_calls and "dynamic_shapes" in text and "example_args" in text:
            self._module_declaration(tree)
        self.fi.outline = outline(tree, len(split_lines(text)), text, ends, whole)

    def _import(self, st: ast.AST) -> None:
        fi = self.fi
        if isinstance(st, ast.Import):
            for a in st.names:
                if a.asname:
                    fi.imports[a.asname] = a.name
                else:
                    top = a.name.split(".", 1)[0]
                    fi.imports.setdefault(top, top)
        elif isinstance(st, ast.ImportFrom):
            base = absolute(self.pkg, st.level, st.module)
            for a in st.names:
                if a.name == "*":
                    fi.star.append(base)
                    continue
                fi.imports[a.asname or a.name] = f"{base}.{a.name}" if base else a.name

    def _top(self, body: list) -> None:
        fi = self.fi
        for st in body:
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                self._import(st)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                fi.functions[st.name] = st.lineno
                self._decorators(st.name, st)
            elif isinstance(st, ast.Expr) and isinstance(st.value, ast.Call):
                self._fake_call(st.value)
                self._op_call(st.value)
            elif isinstance(st, ast.ClassDef):
                self._class(st)
            elif isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call):
                    self._library(targets, st.value)
                for t in targets:
                    if isinstance(t, ast.Name):
                        fi.assigned.add(t.id)
                        if t.id == "__all__":
                            v = _literal(st.value)
                            if isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
                                fi.all = (fi.all or []) + list(v) if isinstance(st, ast.AugAssign) else list(v)
            elif isinstance(st, (ast.If, ast.Try)) or type(st).__name__ == "TryStar":
                before = dict(fi.imports)
                self._top(st.body)
                tried = try_torch_imports(before, fi.imports) if not isinstance(st, ast.If) else {}
                for h in getattr(st, "handlers", ()):
                    self._top(h.body)
                fi.imports.update(tried)  # (a try's `else:`, run after its body, may still rebind)
                self._top(getattr(st, "orelse", []))

    def _class(self, st: ast.ClassDef) -> None:
        fi = self.fi
        bases = [_resolve(fi.imports, ast_dotted(b)) or "" for b in st.bases]
        ci = ClassInfo(st.name, st.lineno, bases)
        init = None
        for item in st.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                ci.methods[item.name] = item.lineno
                self._decorators(f"{st.name}.{item.name}", item)
                if item.name == "__init__":
                    init = item
        if init is not None and init.args.args:
            self_name = init.args.args[0].arg
            ia = init.args
            # parameters of __init__ a submodule may be built from (``self.x = block(...)``):
            # recorded as "@Class.param" (``semantics/ctor_classes``)
            self._ctor_params = ({p.arg for p in (ia.posonlyargs + ia.args)[1:] + ia.kwonlyargs}, st.name)
            stack = list(init.body)
            while stack:  # statements only (if/for/with/try blocks), not expressions
                node = stack.pop()
                if isinstance(node, ast.Assign):
                    value = node.value
                    if isinstance(value, ast.IfExp):
                        # `block(...) if block else None`: the module when there is one
                        arms = [x for x in (value.body, value.orelse)
                                if not (isinstance(x, ast.Constant) and x.value is None)]
                        value = arms[0] if len(arms) == 1 and _param_call(arms[0], self._ctor_params[0]) else None
                    if isinstance(value, ast.Call):
                        for t in node.targets:
                            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == self_name:
                                ctors = self._ctors(value)
                                if ctors:
                                    ci.attrs[t.attr] = ctors
                elif isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                    stack.extend(node.body)
                    stack.extend(getattr(node, "orelse", ()))
                    stack.extend(getattr(node, "finalbody", ()))
                    for h in getattr(node, "handlers", ()):
                        stack.extend(h.body)
        self._ctor_params = (set(), "")
        fi.classes[st.name] = ci

    def _decorators(self, qual: str, fn: ast.AST) -> None:
        """The decorators of a function or method, and the fake kernels they register."""
        out = []
        for d in getattr(fn, "decorator_list", ()):
            call = d if isinstance(d, ast.Call) else None
            name = _resolve(self.fi.imports, ast_dotted(call.func if call is not None else d))
            if not name:
                continue
            first = None
            rec_false = False
            if call is not None:
                if call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
                    first = call.args[0].value
                rec_false = any(k.arg == "recursive" and isinstance(k.value, ast.Constant) and k.value.value is False
                                for k in call.keywords)
                self._fake_call(call)
            elif name.endswith((".register_fake", ".impl_abstract")):
                self.fi.fakes.add(name.rsplit(".", 1)[0])
            if call is not None and isinstance(first, str) and "::" in first and name.endswith("custom_op"):
                self.fi.ops.add(first)
            out.append([name, call is not None, first, rec_false])
        if out:
            self.fi.decorators[qual] = out

    def _library(self, targets: list, call: ast.Call) -> None:
        """``lib = torch.library.Library("ns", "DEF" | "FRAGMENT")``: remember ``lib``'s namespace."""
        name = _resolve(self.fi.imports, ast_dotted(call.func)) or ""
        if not name.endswith("library.Library") or not call.args:
            return
        ns = call.args[0]
        if isinstance(ns, ast.Constant) and isinstance(ns.value, str):
            for t in targets:
                if isinstance(t, ast.Name):
                    self._libs[t.id] = ns.value

    def _op_call(self, call: ast.Call) -> None:
        """Module-level op definitions and kernels: ``torch.library.define("ns::op", ...)``,
        ``torch.library.custom_op("ns::op", fn, ...)``,
        ``lib.define("op(Tensor x) -> Tensor")``, ``lib.impl("op", fn, "Meta")`` (a fake kernel;
        ``CompositeImplicitAutograd`` too: it decomposes, torch.export traces through it)."""
        name = _resolve(self.fi.imports, ast_dotted(call.func)) or ""
        first = call.args[0] if call.args else None
        lit = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        if lit is None:
            return
        if name.endswith("library.define") and "::" in lit:
            self.fi.ops.add(lit.split("(", 1)[0].split(".", 1)[0])
            return
        if name.endswith("library.custom_op") and "::" in lit:
            self.fi.ops.add(lit)  # the call form: `torch.library.custom_op("ns::op", fn, ...)`
            return
        if name.endswith("library.impl") and len(call.args) > 1 and "::" in lit:
            dev = call.args[1]
            if isinstance(dev, ast.Constant) and dev.value == "CompositeImplicitAutograd":
                self.fi.fakes.add(lit.split(".", 1)[0])
            return
        f = call.func
        libs = self._libs
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in libs):
            return
        op = f"{libs[f.value.id]}::{lit.split('(', 1)[0].split('.', 1)[0].strip()}"
        if f.attr == "define":
            self.fi.ops.add(op)
        elif f.attr == "impl":
            dev = call.args[2] if len(call.args) > 2 else next((k.value for k in call.keywords if k.arg == "dispatch_key"), None)
            if isinstance(dev, ast.Constant) and dev.value in ("Meta", "CompositeImplicitAutograd"):
                self.fi.fakes.add(op)

    def _fake_call(self, call: ast.Call) -> None:
        """``torch.library.register_fake("ns::op")`` / ``impl("ns::op", "Meta")`` /
        ``op.register_fake(...)``: a fake kernel registered here."""
        name = _resolve(self.fi.imports, ast_dotted(call.func)) or ""
        first = call.args[0] if call.args else None
        lit = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        if name.endswith(("library.register_fake", "library.impl_abstract", "library.register_meta")):
            if lit is not None:
                self.fi.fakes.add(lit)
        elif name.endswith("library.impl") and len(call.args) > 1:
            dev = call.args[1]
            if lit is not None and isinstance(dev, ast.Constant) and dev.value == "Meta":
                self.fi.fakes.add(lit)
        elif name.endswith((".register_fake", ".impl_abstract")) and not name.startswith("torch."):
            self.fi.fakes.add(name.rsplit(".", 1)[0])

    def _ctors(self, call: ast.Call) -> list[str]:
        q = self._ctor_name(call.func)
        if q is None:
            return []
        if q in ("torch.nn.ModuleList", "torch.nn.Sequential") and call.args:
            inner = call.args[0]
            if isinstance(inner, (ast.ListComp, ast.GeneratorExp)):
                elts = [inner.elt]
            elif isinstance(inner, (ast.List, ast.Tuple)):
                elts = list(inner.elts)
            elif q == "torch.nn.Sequential":
                elts = list(call.args)
            else:
                elts = []
            out = []
            for e in elts:
                if isinstance(e, ast.Call):
                    d = self._ctor_name(e.func)
                    if d:
                        out.append(d)
                elif (isinstance(e, ast.Starred) and isinstance(e.value, ast.Call)
                      and not isinstance(e.value.func, ast.Call)):
                    # `nn.Sequential(*make_layers(cfg))`: the items of the list a helper returns
                    # ("*" + the helper: ``project.built_classes``)
                    d = _resolve(self.fi.imports, ast_dotted(e.value.func))
                    if d:
                        out.append("*" + d)
            return out
        return [q]

    def _ctor_name(self, func: ast.AST) -> Optional[str]:
        """The constructor a call in ``__init__`` names: "@Class.param" for a parameter of the
        class's ``__init__`` (the class the constructions pass: ``semantics/ctor_classes``)."""
        params, cls = getattr(self, "_ctor_params", (set(), ""))
        if isinstance(func, ast.Name) and func.id in params:
            return f"@{cls}.{func.id}"  # (a parameter __init__ rebinds: ``param_classes`` answers unknown)
        return _resolve(self.fi.imports, ast_dotted(func))

    def _maybe_export(self, node: ast.Call) -> None:
        q = _resolve(self.fi.imports, ast_dotted(node.func))
        if q not in EXPORT_APIS:
            return
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        model_e = node.args[0] if node.args else kw.get("model") or kw.get("mod") or kw.get("f") or kw.get("func")
        model = None
        model_class = None
        if isinstance(model_e, ast.Call):
            model = model_class = _resolve(self.fi.imports, ast_dotted(model_e.func))
            if model is None and isinstance(model_e.func, ast.Attribute) and model_e.func.attr in ("eval", "to", "cpu", "float"):
                inner = model_e.func.value
                if isinstance(inner, ast.Call):
                    model = model_class = _resolve(self.fi.imports, ast_dotted(inner.func))
                else:
                    model = ast_dotted(inner)
        elif model_e is not None:
            model = _resolve(self.fi.imports, ast_dotted(model_e))
        opset = _literal(kw.get("opset_version"))
        ef = ExportFacts(q, node.lineno, model, model_class, opset if isinstance(opset, int) else None)
        names = _literal(kw.get("input_names"))
        if isinstance(names, (list, tuple)) and all(isinstance(x, str) for x in names):
            ef.input_names = list(names)
        for key in ("dynamic_shapes", "dynamic_axes"):
            v = kw.get(key)
            if v is None or (isinstance(v, ast.Constant) and v.value is None):
                continue
            if isinstance(v, ast.Dict) and not v.keys:
                continue
            ef.declares_dynamic = True
            if isinstance(v, ast.Dict):
                for k, val in zip(v.keys, v.values):
                    kk = _literal(k) if k is not None else _MISSING
                    if isinstance(kk, str):
                        ef.dynamic.setdefault(kk, set()).update(spec_dims(val, key, getattr(self, "_dim_vars", None)))
            elif key == "dynamic_shapes" and isinstance(v, (ast.Tuple, ast.List)) and not any(
                    isinstance(el, ast.Starred) for el in v.elts):
                # one spec per positional input: "#i" (the project maps it to forward's i-th
                # parameter, ``Project.export_facts``)
                for i, el in enumerate(v.elts):
                    if isinstance(el, (ast.Dict, ast.Tuple, ast.List)):
                        dims = spec_dims(el, key, getattr(self, "_dim_vars", None))
                        if dims:
                            ef.dynamic.setdefault(f"#{i}", set()).update(dims)
                    elif not (isinstance(el, ast.Constant) and el.value is None):
                        ef.dynamic.setdefault("*", set()).add("*")
            else:
                ef.dynamic.setdefault("*", set()).add("*")
        self.fi.export_calls.append(ef)

    def _module_declaration(self, tree: ast.Module) -> None:
        """An ExportDB-style module (``example_args`` and a module-level ``dynamic_shapes =
        {...}``, the convention ``--confirm`` discovers targets by) declares the dynamic dims
        its model is exported with: one export fact (api ``"dynamic_shapes"``) for the module's
        class whose forward takes the declared names."""
        decl = None
        has_args = False
        model_q = None
        classes: list[ast.ClassDef] = []
        for st in tree.body:
            if isinstance(st, ast.ClassDef):
                classes.append(st)
            elif isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                if st.targets[0].id == "example_args":
                    has_args = True
                elif st.targets[0].id == "dynamic_shapes" and isinstance(st.value, (ast.Dict, ast.Tuple, ast.List)):
                    decl = st
                elif st.targets[0].id == "model" and isinstance(st.value, ast.Call):
                    model_q = _resolve(self.fi.imports, ast_dotted(st.value.func))
        if decl is None or not has_args:
            return
        dim_vars = _dim_vars(tree)
        ranks = self._example_ranks(tree)
        if not isinstance(decl.value, ast.Dict):
            # `model = Model(...)` (this file's class or an imported one) and one spec per
            # positional input: "#i", mapped to forward's i-th parameter by the project
            if not model_q or any(isinstance(el, ast.Starred) for el in decl.value.elts):
                return
            ef = ExportFacts("dynamic_shapes", decl.lineno, model_q, model_q, None, declares_dynamic=True)
            for i, el in enumerate(decl.value.elts):
                if isinstance(el, (ast.Dict, ast.Tuple, ast.List)):
                    got = spec_dims(el, "dynamic_shapes", dim_vars)
                    dims = {d for d in got if isinstance(d, int)}
                    if dims:
                        ef.dynamic.setdefault(f"#{i}", set()).update(dims)
                        ef.dynamic[f"#{i}"].update(d for d in got if isinstance(d, str)
                                                   and d.startswith(("name:", "mult:", "same:")))
                        if ranks.get(i) is not None:
                            ef.dynamic[f"#{i}"].add(f"rank:{ranks[i]}")
            if ef.dynamic:
                self.fi.export_calls.append(ef)
            return
        keys = {k.value for k in decl.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        cls = None
        order = None
        for c in classes:
            for item in c.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "forward":
                    a = item.args
                    params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
                    if keys and keys <= params:
                        cls = c.name if cls is None else ""  # two candidates: not known which
                        order = [p.arg for p in a.posonlyargs + a.args if p.arg != "self"]
        if cls is None and model_q:
            # `model = Model(...)` of another module (a case package's `__init__`): the project
            # maps the names to that class's forward (``Project.export_facts``)
            cls, order = model_q, None
        if not cls:
            return
        ef = ExportFacts("dynamic_shapes", decl.lineno, cls, cls, None, declares_dynamic=True)
        for k, val in zip(decl.value.keys, decl.value.values):
            kk = _literal(k) if k is not None else _MISSING
            if isinstance(kk, str):
                ef.dynamic.setdefault(kk, set()).update(spec_dims(val, "dynamic_shapes", dim_vars))
        for i, r in ranks.items():
            if r is None:
                continue
            if order is not None:
                if i < len(order) and order[i] in ef.dynamic:
                    ef.dynamic[order[i]].add(f"rank:{r}")
            else:
                # the class is in another module: "rank:i=r", placed by ``Project.export_facts``
                ef.dynamic.setdefault(RANKS_KEY, set()).add(f"rank:{i}={r}")
        self.fi.export_calls.append(ef)

    @staticmethod
    def _example_ranks(tree: ast.Module) -> dict:
        """Position -> rank of each example input of a literal ``example_args = (...)`` built by a
        torch factory with literal sizes (None where not known)."""
        for st in tree.body:
            if (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)
                    and st.targets[0].id == "example_args" and isinstance(st.value, (ast.Tuple, ast.List))):
                return {i: _example_rank(e) for i, e in enumerate(st.value.elts)}
        return {}

    def _export_model_classes(self, tree: ast.Module) -> None:
        assigned: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                v = node.value
                # m = Model(...).eval()
                while isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in ("eval", "to", "cpu", "float", "half"):
                    v = v.func.value
                if isinstance(v, ast.Call):
                    q = _resolve(self.fi.imports, ast_dotted(v.func))
                    if q:
                        assigned.setdefault(node.targets[0].id, q)
        for ef in self.fi.export_calls:
            if ef.model_class is None and ef.model in assigned:
                ef.model_class = assigned[ef.model]


def _dim_name(val: ast.AST, dim_vars: Optional[dict]) -> Optional[str]:
    """The name of the torch.export Dim a spec value builds or names: ``Dim("b", ...)`` (also
    ``torch.export.Dim``), or a module-level name bound to one (``B = Dim("b")``); None for
    ``Dim.DYNAMIC`` / ``Dim.AUTO``, derived dims (``2 * b``) and anything else."""
    if isinstance(val, ast.Call) and val.args and isinstance(val.args[0], ast.Constant) \
            and isinstance(val.args[0].value, str) and (ast_dotted(val.func) or "").rsplit(".", 1)[-1] == "Dim":
        return val.args[0].value
    if isinstance(val, ast.Name) and dim_vars:
        return dim_vars.get(val.id)
    return None


def _dim_vars(tree: ast.Module) -> dict:
    """Module-level ``B = Dim("b", ...)``: name -> the Dim's name (a name bound twice: left out)."""
    out: dict = {}
    twice: set = set()
    for st in tree.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            n = st.targets[0].id
            d = _dim_name(st.value, None)
            if n in out or n in twice:
                twice.add(n)
                out.pop(n, None)
            elif d is not None:
                out[n] = d
    return out


#: example-input factories whose shape is their size arguments: ``torch.randn(2, 3)``,
#: ``torch.ones((2, 6), dtype=...)``, ``torch.randint(0, 50, (2, 6))`` (the size is the third)
_SHAPED = {"randn": 0, "rand": 0, "zeros": 0, "ones": 0, "empty": 0, "randint": 2, "full": 0}


def _example_rank(e: ast.AST) -> Optional[int]:
    """The rank of an example input built by a torch factory with literal sizes, else None."""
    if not isinstance(e, ast.Call):
        return None
    d = ast_dotted(e.func) or ""
    head, _, attr = d.rpartition(".")
    if head not in ("torch",) or attr not in _SHAPED:
        return None
    pos = _SHAPED[attr]
    if attr == "randint" and len(e.args) == 2:
        pos = 1
    args = e.args[pos:]
    if not args:
        return None
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = args[0].elts
    elif attr in ("randint", "full"):
        return None
    if all(isinstance(a, ast.Constant) and isinstance(a.value, int) and not isinstance(a.value, bool) for a in args):
        return len(args)
    return None


def static_spec(val: ast.AST) -> bool:
    """A ``dynamic_shapes`` entry that keeps its dim static: ``None`` or ``Dim.STATIC`` (torch 2.13:
    ``export(m, (x,), dynamic_shapes={"x": {0: Dim("b"), 1: None}})`` gives ``x`` the shape
    ``[s77, 5]``, in the dict and the tuple form alike)."""
    return (isinstance(val, ast.Constant) and val.value is None) or (
        isinstance(val, ast.Attribute) and val.attr == "STATIC")


def spec_dims(v: ast.AST, key: str, dim_vars: Optional[dict] = None) -> set:
    dims: set = set()
    if isinstance(v, ast.Dict):
        same: dict[str, list[int]] = {}
        for k, val in zip(v.keys, v.values):
            kk = _literal(k) if k is not None else _MISSING
            if key == "dynamic_shapes" and isinstance(kk, int) and static_spec(val):
                continue  # {1: None} / {1: Dim.STATIC}: dim 1 stays static
            dims.add(kk if isinstance(kk, int) else "*")
            if isinstance(kk, int) and key == "dynamic_shapes":
                nm = _dim_name(val, dim_vars)
                if nm is not None:
                    # "name:d=N": dim d is the named Dim N (EXL146: separate Dims tied by an op)
                    dims.add(f"name:{kk}={nm}")
            if isinstance(kk, int) and isinstance(val, ast.BinOp) and isinstance(val.op, ast.Mult):
                dims.add(f"mult:{kk}")  # `4 * Dim("b")`: declared a multiple (control_flow's split check)
            if isinstance(kk, int) and (isinstance(val, ast.Name) or (
                    isinstance(val, ast.Call) and val.args and isinstance(val.args[0], ast.Constant)
                    and isinstance(val.args[0].value, str))):
                # one Dim object (or one Dim name) for several dims: torch.export makes them one
                # symbol (`{2: S, 3: S}`); "same:2,3" records it (control_flow's equality check)
                same.setdefault(ast.dump(val.args[0]) if isinstance(val, ast.Call) else val.id, []).append(kk)
        for ds in same.values():
            if len(ds) > 1:
                dims.add("same:" + ",".join(map(str, sorted(ds))))
    elif isinstance(v, (ast.List, ast.Tuple)):
        lit = _literal(v)
        if key == "dynamic_axes" and isinstance(lit, (list, tuple)) and all(isinstance(x, int) for x in lit):
            dims.update(lit)
        else:
            for i, el in enumerate(v.elts):
                if not static_spec(el):
                    dims.add(i)
    else:
        dims.add("*")
    return dims
