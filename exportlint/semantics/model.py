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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Optional, Union

import libcst as cst

from exportlint.semantics.imports import ImportMap, dotted
from exportlint.semantics.kinds import (
    CONST,
    DATA,
    MASK,
    MODULE,
    NONE,
    SHAPE,
    TENSOR,
    TENSORISH,
    UNKNOWN,
    combine,
    join,
    truth_kind,
    worst,
)

MISSING: Any = object()

# ---------------------------------------------------------------------------------------
# knowledge about torch APIs (by qualified name)
# ---------------------------------------------------------------------------------------

#: calls that return True while an exporter traces: the not-exporting side is skipped
EXPORT_GUARDS = frozenset(
    {
        "torch.jit.is_tracing",
        "torch._C._get_tracing_state",
        "torch.compiler.is_compiling",
        "torch.compiler.is_dynamo_compiling",
        "torch.compiler.is_exporting",
        "torch._dynamo.is_compiling",
        "torch.onnx.is_in_onnx_export",
        "torch.fx._symbolic_trace.is_fx_tracing",
        "torch._utils.is_compiling",
    }
)
#: guard helpers often re-exported by libraries (matched by their last name)
EXPORT_GUARD_NAMES = frozenset(
    {"is_tracing", "is_torchdynamo_compiling", "is_compiling", "is_exporting", "is_in_onnx_export", "is_fx_tracing",
     "is_torch_fx_proxy", "is_dynamo_compiling", "is_torchdynamo_exporting"}
)
#: calls that return False under every exporter (scripting only)
NEVER_DURING_EXPORT = frozenset({"torch.jit.is_scripting"})
NEVER_DURING_EXPORT_NAMES = frozenset({"is_scripting"})
#: torch functions named like these return a Python bool about the runtime, not a tensor
BOOL_QUERY_PREFIXES = ("is_", "are_", "has_")
#: decorators that mark a function as Python-side only (the author keeps it off the graph)
JIT_SKIP_DECORATORS = frozenset({"torch.jit.unused", "torch.jit.ignore", "torch.jit._script.unused",
                                 "torch.jit._script.ignore"})

CONST_FUNCS = frozenset(
    {
        "torch.is_tensor",
        "torch.is_floating_point",
        "torch.is_complex",
        "torch.is_storage",
        "torch.is_grad_enabled",
        "torch.is_inference_mode_enabled",
        "torch.is_autocast_enabled",
        "torch.get_default_dtype",
        "torch.get_autocast_gpu_dtype",
        "torch.finfo",
        "torch.iinfo",
        "torch.device",
        "torch.dtype",
        "torch.promote_types",
        "torch.result_type",
        "torch.can_cast",
        "torch.cuda.is_available",
        "torch.cuda.device_count",
        "torch.cuda.current_device",
        "torch.get_device",
    }
)
DATA_FUNCS = frozenset({"torch.equal", "torch.allclose", "torch.is_nonzero"})
SHAPE_FUNCS = frozenset({"torch.numel", "torch.broadcast_shapes", "torch.Size"})
MASK_FUNCS = frozenset(
    {
        "torch.isnan", "torch.isinf", "torch.isfinite", "torch.isposinf", "torch.isneginf", "torch.isreal",
        "torch.eq", "torch.ne", "torch.gt", "torch.lt", "torch.ge", "torch.le", "torch.greater", "torch.less",
        "torch.greater_equal", "torch.less_equal", "torch.not_equal",
        "torch.logical_and", "torch.logical_or", "torch.logical_not", "torch.logical_xor",
        "torch.isin", "torch.isclose", "torch.any", "torch.all", "torch.signbit",
    }
)
#: torch namespaces whose functions do not return tensors
NON_TENSOR_NAMESPACES = (
    "torch.cuda.", "torch.distributed.", "torch.backends.", "torch.jit.", "torch.compiler.", "torch.onnx.",
    "torch._dynamo.", "torch.fx.", "torch.utils.data.", "torch.autograd.grad_mode.", "torch.hub.",
    "torch.multiprocessing.", "torch.profiler.", "torch.testing.", "torch.export.", "torch.library.",
    "torch.overrides.", "torch._C.", "torch.types.", "torch.serialization.", "torch.random.",
)
NON_TENSOR_TORCH_FUNCS = frozenset(
    {
        "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled", "torch.autocast",
        "torch.manual_seed", "torch.seed", "torch.set_default_dtype", "torch.set_printoptions", "torch.load",
        "torch.save", "torch.compile", "torch.get_rng_state", "torch.use_deterministic_algorithms",
        "torch.set_num_threads", "torch.get_num_threads", "torch.typename", "torch.Generator",
    }
)

#: ops whose result's size depends on tensor values (iterating them is a data-dependent loop)
DDS_OPS = frozenset({"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive", "nonzero_static"})
#: calls through which the author declares facts about data-dependent values for export
CHECK_FUNCS = frozenset({"torch._check", "torch._check_is_size", "torch._constrain_as_size",
                         "torch._constrain_as_value", "torch._check_with", "torch.export.constrain_as_size"})
#: classes of these names compute losses/metrics/matching: training code, never exported
NON_EXPORT_CLASS_SUFFIXES = ("Loss", "Criterion", "Matcher", "Metric", "Metrics")

TENSOR_METHODS_DATA = frozenset({"item", "tolist", "numpy", "__bool__", "__int__", "__float__", "equal", "allclose", "__index__"})
TENSOR_METHODS_SHAPE = frozenset({"size", "numel", "nelement", "stride", "storage_offset"})
TENSOR_METHODS_CONST = frozenset(
    {
        "dim", "ndimension", "is_contiguous", "is_floating_point", "is_complex", "get_device", "element_size",
        "data_ptr", "is_signed", "is_pinned", "is_shared", "has_names", "is_inference", "is_set_to",
        "untyped_storage", "storage", "type", "__len__", "is_nonzero",
    }
)
TENSOR_METHODS_MASK = frozenset(
    {
        "eq", "ne", "gt", "lt", "ge", "le", "greater", "less", "greater_equal", "less_equal", "not_equal",
        "logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite", "isposinf",
        "isneginf", "any", "all", "bool", "isclose", "isin", "signbit", "__eq__", "__ne__", "__lt__", "__gt__",
    }
)
TENSOR_ATTRS_CONST = frozenset(
    {
        "ndim", "dtype", "device", "is_cuda", "is_cpu", "is_meta", "is_sparse", "is_quantized", "requires_grad",
        "layout", "is_leaf", "grad_fn", "names", "is_mkldnn", "is_mps", "is_xpu", "is_nested", "itemsize", "nbytes",
    }
)
TENSOR_ATTRS_SHAPE = frozenset({"shape"})

#: Python builtins whose result is a fixed Python value whatever the argument
CONST_BUILTINS = frozenset({"isinstance", "issubclass", "hasattr", "callable", "type", "id", "repr", "str", "print", "format"})
SCALAR_CONVERSIONS = frozenset({"int", "float", "bool", "complex"})

ANNOT_TENSOR = ("Tensor", "FloatTensor", "LongTensor", "BoolTensor", "IntTensor", "HalfTensor", "ByteTensor", "DoubleTensor")
ANNOT_CONST = frozenset({"int", "float", "bool", "str", "bytes", "complex", "None", "Literal"})
ANNOT_CONTAINERS = frozenset({"Optional", "Union", "List", "Tuple", "Sequence", "list", "tuple", "Iterable", "Final"})


# ---------------------------------------------------------------------------------------
# facts
# ---------------------------------------------------------------------------------------


@dataclass
class Branch:
    node: cst.BaseExpression  # the test expression
    kind: str  # DATA | SHAPE | CONST | UNKNOWN: what the decision depends on
    construct: str  # if | elif | while | ifexp | assert | comprehension
    stmt: cst.CSTNode  # the If/While/IfExp/Assert/CompIf node
    #: the first sub-expression responsible for the kind (e.g. the `.item()` call, the `.shape` read)
    culprit: Optional[cst.BaseExpression] = None


@dataclass
class Loop:
    node: cst.CSTNode  # For or CompFor
    iter: cst.BaseExpression
    kind: str  # DATA (trip count from tensor data) | SHAPE | CONST | UNKNOWN
    over_tensor: bool = False  # `for row in t:`


@dataclass
class CallSite:
    node: cst.Call
    qualname: Optional[str]
    method: Optional[str]
    receiver_kind: Optional[str]
    arg_kinds: list[str]
    kind: str  # the kind of the call's result
    fn: "FunctionFacts"
    guarded: bool = False
    #: the tests of the `if`s this call sits under (innermost last)
    conds: tuple = ()

    @property
    def args(self) -> Sequence_Arg:
        return self.node.args

    def kwarg(self, name: str) -> Optional[cst.Arg]:
        for a in self.node.args:
            if a.keyword is not None and a.keyword.value == name:
                return a
        return None

    def has_kwarg(self, name: str) -> bool:
        return self.kwarg(name) is not None

    def positional(self) -> list[cst.Arg]:
        return [a for a in self.node.args if a.keyword is None and not a.star]

    def const_kwarg(self, name: str, default: Any = None) -> Any:
        a = self.kwarg(name)
        if a is None:
            return default
        v = literal_value(a.value)
        return default if v is MISSING else v

    def const_arg(self, i: int, default: Any = None) -> Any:
        pos = self.positional()
        if i >= len(pos):
            return default
        v = literal_value(pos[i].value)
        return default if v is MISSING else v

    def arg_kind(self, arg: cst.Arg) -> str:
        for a, k in zip(self.node.args, self.arg_kinds):
            if a is arg:
                return k
        return UNKNOWN


Sequence_Arg = Any


@dataclass
class Subscript:
    node: cst.Subscript
    value_kind: str
    index_kinds: list[str]  # per element: the worst kind among index / bounds
    mask_index: bool  # an element is a boolean tensor


@dataclass
class StateWrite:
    node: cst.CSTNode
    target: str  # "self.counter", "global COUNTER", "self.cache.append"
    how: str  # assign | augassign | mutate-call | subscript-assign | global
    #: written under a test that it is not set yet (`if self._cache is None:`): an idempotent cache
    cached: bool = False


@dataclass
class AttrFact:
    name: str
    what: str  # submodule | parameter | buffer | tensor | config | unknown
    node: cst.CSTNode  # where it was set (the Assign / register_buffer call)
    value: Optional[cst.BaseExpression] = None


@dataclass
class ClassFacts:
    name: str
    node: cst.ClassDef
    bases: list[str]  # qualified (or local) names of the bases
    methods: dict[str, cst.FunctionDef] = field(default_factory=dict)
    is_module: bool = False
    is_autograd_function: bool = False
    attrs: dict[str, AttrFact] = field(default_factory=dict)
    local_bases: list["ClassFacts"] = field(default_factory=list)
    #: indentation of the class body's statements in the source (for positions)
    body_indent: str = ""

    def find_method(self, name: str, _seen: Optional[set] = None) -> Optional[tuple["ClassFacts", cst.FunctionDef]]:
        if name in self.methods:
            return self, self.methods[name]
        seen = _seen or set()
        seen.add(self.name)
        for b in self.local_bases:
            if b.name in seen:
                continue
            r = b.find_method(name, seen)
            if r:
                return r
        return None

    def find_attr(self, name: str, _seen: Optional[set] = None) -> Optional[AttrFact]:
        if name in self.attrs:
            return self.attrs[name]
        seen = _seen or set()
        seen.add(self.name)
        for b in self.local_bases:
            if b.name in seen:
                continue
            r = b.find_attr(name, seen)
            if r:
                return r
        return None


@dataclass
class ExportCall:
    node: cst.Call
    api: str  # torch.onnx.export | torch.export.export | torch.jit.trace | ...
    model: Optional[cst.BaseExpression]
    args: Optional[cst.BaseExpression]
    scope: Union[cst.Module, cst.FunctionDef]  # the function (or module) the call is in

    def kwarg(self, name: str) -> Optional[cst.BaseExpression]:
        for a in self.node.args:
            if a.keyword is not None and a.keyword.value == name:
                return a.value
        return None

    def positional(self, i: int) -> Optional[cst.BaseExpression]:
        pos = [a for a in self.node.args if a.keyword is None and not a.star]
        return pos[i].value if i < len(pos) else None


EXPORT_APIS = {
    "torch.onnx.export": ("model", "args"),
    "torch.onnx.dynamo_export": ("model", "args"),
    "torch.export.export": ("mod", "args"),
    "torch.export.export_for_training": ("mod", "args"),
    "torch.export.export_for_inference": ("mod", "args"),
    "torch.export.draft_export": ("mod", "args"),
    "torch.jit.trace": ("func", "example_inputs"),
    "torch.jit.trace_module": ("mod", "inputs"),
    "torch._dynamo.export": ("f", None),
}


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def literal_value(node: cst.BaseExpression) -> Any:
    """The Python value of a literal expression, or MISSING."""
    if isinstance(node, cst.Integer):
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return MISSING
    if isinstance(node, cst.Float):
        try:
            return float(node.value.replace("_", ""))
        except ValueError:
            return MISSING
    if isinstance(node, cst.SimpleString):
        try:
            v = node.evaluated_value
        except Exception:  # pragma: no cover - defensive
            return MISSING
        return v
    if isinstance(node, cst.ConcatenatedString):
        try:
            return node.evaluated_value
        except Exception:
            return MISSING
    if isinstance(node, cst.Name):
        if node.value == "True":
            return True
        if node.value == "False":
            return False
        if node.value == "None":
            return None
        return MISSING
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        v = literal_value(node.expression)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v
        return MISSING
    if isinstance(node, (cst.Tuple, cst.List)):
        out = []
        for e in node.elements:
            if not isinstance(e, cst.Element):
                return MISSING
            v = literal_value(e.value)
            if v is MISSING:
                return MISSING
            out.append(v)
        return tuple(out) if isinstance(node, cst.Tuple) else out
    if isinstance(node, cst.Dict):
        d = {}
        for e in node.elements:
            if not isinstance(e, cst.DictElement):
                return MISSING
            k = literal_value(e.key)
            v = literal_value(e.value)
            if k is MISSING or v is MISSING:
                return MISSING
            try:
                d[k] = v
            except TypeError:
                return MISSING
        return d
    return MISSING


def body_statements(node: Any) -> Iterable[cst.CSTNode]:
    """Statements of an IndentedBlock or SimpleStatementSuite (or a Module)."""
    body = node.body
    if isinstance(body, (list, tuple)):
        return body
    return body.body if hasattr(body, "body") else ()


def annotation_kind(ann: Optional[cst.Annotation], imports: ImportMap) -> Optional[str]:
    if ann is None:
        return None
    return _annot_expr_kind(ann.annotation)


def _annot_expr_kind(e: cst.BaseExpression) -> Optional[str]:
    if isinstance(e, (cst.SimpleString, cst.ConcatenatedString)):
        v = literal_value(e)
        if isinstance(v, str):
            try:
                e = cst.parse_expression(v)
            except Exception:
                return UNKNOWN
        else:
            return UNKNOWN
    if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.BitOr):
        kinds = [_annot_expr_kind(e.left), _annot_expr_kind(e.right)]
        return _merge_annot(kinds)
    d = dotted(e)
    if d is not None:
        last = d.rsplit(".", 1)[-1]
        if last in ANNOT_TENSOR:
            return TENSOR
        if last in ANNOT_CONST:
            return CONST if last != "None" else NONE
        return UNKNOWN
    if isinstance(e, cst.Subscript):
        head = dotted(e.value)
        last = head.rsplit(".", 1)[-1] if head else ""
        if last in ("Optional", "Union"):
            kinds = []
            for el in e.slice:
                if isinstance(el.slice, cst.Index):
                    kinds.append(_annot_expr_kind(el.slice.value))
            return _merge_annot(kinds)
        if last == "Literal":
            return CONST
        if last in ("List", "Tuple", "Sequence", "list", "tuple"):
            kinds = []
            for el in e.slice:
                if isinstance(el.slice, cst.Index):
                    kinds.append(_annot_expr_kind(el.slice.value))
            m = _merge_annot([k for k in kinds if k is not None])
            return CONST if m == CONST else UNKNOWN
        return UNKNOWN
    return UNKNOWN


_CONTAINER_NAMES = frozenset({"list", "List", "tuple", "Tuple", "dict", "Dict", "Sequence", "Iterable", "Mapping",
                              "MutableSequence", "set", "Set", "Iterator", "Collection"})


def _container_annotation(ann: Optional[cst.Annotation]) -> bool:
    """Does the annotation name a Python container (alone or in a Union / Optional / |)?"""
    if ann is None:
        return False
    for n in iter_nodes(ann.annotation):
        if isinstance(n, (cst.Name, cst.Attribute)):
            d = dotted(n)
            if d is not None and d.rsplit(".", 1)[-1] in _CONTAINER_NAMES:
                return True
        elif isinstance(n, (cst.SimpleString, cst.ConcatenatedString)):
            v = literal_value(n)
            if isinstance(v, str) and any(c in v for c in ("list", "List", "tuple", "Tuple", "Sequence", "dict", "Dict")):
                return True
    return False


def _merge_annot(kinds: list[Optional[str]]) -> str:
    ks = [k for k in kinds if k is not None and k != NONE]
    if not ks:
        return NONE
    if all(k == TENSOR for k in ks):
        return TENSOR
    if all(k == CONST for k in ks):
        return CONST
    return UNKNOWN


def _is_guard_call(node: cst.BaseExpression, imports: ImportMap,
                   helpers: Optional[dict[str, bool]] = None) -> Optional[bool]:
    """True: exporting-guard call (True while exporting); False: never True while exporting."""
    if not isinstance(node, cst.Call):
        return None
    if helpers and isinstance(node.func, cst.Name) and node.func.value in helpers:
        return helpers[node.func.value]
    q = imports.resolve(node.func) or dotted(node.func) or ""
    last = q.rsplit(".", 1)[-1]
    if q in EXPORT_GUARDS or last in EXPORT_GUARD_NAMES:
        return True
    if q in NEVER_DURING_EXPORT or last in NEVER_DURING_EXPORT_NAMES:
        return False
    return None


def guard_value(e: cst.BaseExpression, imports: ImportMap, helpers: Optional[dict[str, bool]] = None) -> Optional[bool]:
    """The value an expression of export guards has while exporting (True / False), or None
    when it is no guard expression: `torch.jit.is_tracing() or torch.jit.is_scripting()`."""
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
        v = guard_value(e.expression, imports, helpers)
        return None if v is None else not v
    if isinstance(e, cst.BooleanOperation):
        a = guard_value(e.left, imports, helpers)
        b = guard_value(e.right, imports, helpers)
        if isinstance(e.operator, cst.Or):
            return True if True in (a, b) else (False if a is False and b is False else None)
        return False if False in (a, b) else (True if a is True and b is True else None)
    return _is_guard_call(e, imports, helpers)


def guard_helpers(functions: dict[str, cst.FunctionDef], imports: ImportMap) -> dict[str, bool]:
    """Module functions whose only statement returns an export-guard expression decided
    whatever the arguments (`def is_tracing(): return torch.jit.is_tracing() or is_scripting()`,
    `def is_proxy(x): return torch.jit.is_tracing() or isinstance(x, Proxy)`), with the value
    they return while exporting."""
    out: dict[str, bool] = {}
    for name, fn in functions.items():
        stmts = [st for st in body_statements(fn.body)
                 if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1
                         and isinstance(st.body[0], cst.Expr) and isinstance(st.body[0].value, cst.SimpleString))]
        if len(stmts) != 1 or not isinstance(stmts[0], cst.SimpleStatementLine) or len(stmts[0].body) != 1:
            continue
        ret = stmts[0].body[0]
        if isinstance(ret, cst.Return) and ret.value is not None:
            v = guard_value(ret.value, imports, out)
            if v is not None:
                out[name] = v
    return out


def guard_polarity(test: cst.BaseExpression, imports: ImportMap,
                   helpers: Optional[dict[str, bool]] = None) -> Optional[str]:
    """'body-not-exported' when the if-body only runs outside export, 'else-not-exported' for the
    else side, None when the test is no export guard."""
    # not G()
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = guard_polarity(test.expression, imports, helpers)
        if inner == "body-not-exported":
            return "else-not-exported"
        if inner == "else-not-exported":
            return "body-not-exported"
        return None
    if isinstance(test, cst.Attribute) and test.attr.value == "training":
        # export captures inference: models are exported in eval mode (EXL501 checks that)
        return "body-not-exported"
    g = _is_guard_call(test, imports, helpers)
    if g is True:
        return "else-not-exported"
    if g is False:
        return "body-not-exported"
    if isinstance(test, cst.BooleanOperation):
        left = guard_polarity(test.left, imports, helpers)
        right = guard_polarity(test.right, imports, helpers)
        if isinstance(test.operator, cst.And):
            # body runs only if both hold: if either side is false while exporting, body is dead
            if "body-not-exported" in (left, right):
                return "body-not-exported"
        else:  # Or: else runs only if both are false; if either is true while exporting, else is dead
            if "else-not-exported" in (left, right):
                return "else-not-exported"
    return None


# ---------------------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------------------


class SemanticModel:
    def __init__(self, module: cst.Module, *, scan_export_calls: bool = True, extra_roots: Iterable[Any] = (),
                 call_returns: Optional[dict[str, str]] = None, project_modules: Any = None) -> None:
        self.module = module
        #: calls into this file from other files of the project (``semantics.project.Root``):
        #: analysed as export-path functions with the argument kinds of those calls
        self.extra_roots = list(extra_roots)
        #: id(FunctionDef) of a root from another file -> its call chain
        self.external_chains: dict[int, Any] = {}
        #: result kinds of calls into other files (``qualified.name`` or ``Class.self.method``)
        self.call_returns: dict[str, str] = dict(call_returns or {})
        #: is this class of the file an nn.Module through bases in other files? (asked of the
        #: project index, only for classes with a forward the file alone cannot decide)
        self._project_module_fn = project_modules
        self._project_module_seen: dict[str, bool] = {}
        self.imports = ImportMap()
        self.classes: dict[str, ClassFacts] = {}
        self.module_functions: dict[str, cst.FunctionDef] = {}
        self.module_consts: dict[str, str] = {}  # module-level name -> kind
        #: id(FunctionDef) -> indentation of its `def` line (module functions and methods)
        self.function_indent: dict[int, str] = {}
        self.functions: list[FunctionFacts] = []
        self.export_calls: list[ExportCall] = []
        self._facts_by_node: dict[int, FunctionFacts] = {}
        self._collect_top(module.body, "")
        #: module functions that only return an export-guard expression -> value while exporting
        self.guard_helpers = guard_helpers(self.module_functions, self.imports)
        self._classify_classes()
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
                self._collect_top(body_statements(st.body), self._block_indent(st.body, prefix))
                if isinstance(st, cst.If) and st.orelse is not None:
                    orelse = st.orelse
                    if isinstance(orelse, cst.If):
                        self._collect_top([orelse], prefix)
                    else:
                        self._collect_top(body_statements(orelse.body), self._block_indent(orelse.body, prefix))
                if not isinstance(st, cst.If):
                    for h in getattr(st, "handlers", ()):
                        self._collect_top(body_statements(h.body), self._block_indent(h.body, prefix))
                    if st.orelse is not None:
                        self._collect_top(body_statements(st.orelse.body), self._block_indent(st.orelse.body, prefix))

    def _static_kind(self, value: cst.BaseExpression) -> str:
        v = literal_value(value)
        if v is not MISSING:
            return NONE if v is None else CONST
        if isinstance(value, cst.Call):
            q = self.imports.resolve(value.func) or ""
            if q.startswith("torch.") and _torch_func_kind(q) in TENSORISH:
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
                    if b in ("torch.autograd.Function", "torch.autograd.function.Function"):
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
                    if ext and not static:
                        mod = True
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
        self_name = _first_param(init)
        if self_name is None:
            return
        analyzer = _InitScanner(self, c, self_name)
        analyzer.scan(body_statements(init.body))

    # ----- export path -----
    def _build_export_path(self) -> None:
        work: list[tuple[cst.FunctionDef, Optional[ClassFacts], Optional[list[str]], dict[str, str], str, Optional["FunctionFacts"]]] = []
        exported_names = {dotted(ec.model.func) if isinstance(ec.model, cst.Call) else dotted(ec.model)
                          for ec in self.export_calls if ec.model is not None}
        for c in self.classes.values():
            if c.is_module and "forward" in c.methods:
                if c.name.endswith(NON_EXPORT_CLASS_SUFFIXES) and c.name not in exported_names:
                    continue
                work.append((c.methods["forward"], c, None, {}, "forward", None))
        for ec in self.export_calls:
            if ec.model is not None and isinstance(ec.model, cst.Name):
                fn = self.module_functions.get(ec.model.value)
                if fn is not None:
                    work.append((fn, None, None, {}, "export-call", None))
        for r in self.extra_roots:
            found = self.root_function(r.qual)
            if found is not None:
                fn, cls = found
                self.external_chains.setdefault(id(fn), r.chain)
                # below the file's own entries: those are analysed first, as without a project
                if r.why == "export-call":
                    work.insert(0, (fn, cls, None, {}, "export-call", None))
                else:
                    work.insert(0, (fn, cls, list(r.pos), dict(r.kw), "cross-file", None))
        # call-site argument kinds per function (join over call sites), then (re)analyse
        seen_args: dict[int, list[str]] = {}
        seen_kw: dict[int, dict[str, str]] = {}
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
                new = [join(a, b) for a, b in zip(old, argk)] + old[len(argk):]
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

    def _project_module(self, name: str) -> bool:
        if self._project_module_fn is None:
            return False
        r = self._project_module_seen.get(name)
        if r is None:
            try:
                r = bool(self._project_module_fn(name))
            except RecursionError:
                r = False
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

    def facts_for(self, fn: cst.FunctionDef) -> Optional["FunctionFacts"]:
        return self._facts_by_node.get(id(fn))


def _first_param(fn: cst.FunctionDef) -> Optional[str]:
    ps = list(fn.params.posonly_params) + list(fn.params.params)
    return ps[0].name.value if ps else None


def _torch_func_kind(q: str) -> str:
    if q in CONST_FUNCS:
        return CONST
    if q in DATA_FUNCS:
        return DATA
    if q in SHAPE_FUNCS:
        return SHAPE
    if q in MASK_FUNCS:
        return MASK
    if q in NON_TENSOR_TORCH_FUNCS:
        return UNKNOWN
    if q.startswith(NON_TENSOR_NAMESPACES):
        return UNKNOWN
    last = q.rsplit(".", 1)[-1]
    if last.startswith(BOOL_QUERY_PREFIXES):
        # torch.are_deterministic_algorithms_enabled(), torch.is_grad_enabled(): Python-level
        # queries returning a bool fixed at export time (torch.is_nonzero is DATA, above)
        return CONST
    if q.startswith("torch.nn.") and not q.startswith(("torch.nn.functional.", "torch.nn.init.")):
        if last[:1].isupper():
            return MODULE if last not in ("Parameter", "Buffer") else TENSOR
        return UNKNOWN
    if last[:1].isupper():
        # torch.Tensor(...), torch.FloatTensor(...), torch.Size(...)
        return TENSOR if last.endswith("Tensor") else UNKNOWN
    return TENSOR


class _InitScanner:
    """Classifies self.X assignments in __init__ (recursing into if/for/with/try)."""

    def __init__(self, model: SemanticModel, cls: ClassFacts, self_name: str) -> None:
        self.m = model
        self.c = cls
        self.self_name = self_name

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
                    self.c.attrs[name] = AttrFact(name, what, small, value)
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
                if q.startswith("torch."):
                    k = _torch_func_kind(q)
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


# ---------------------------------------------------------------------------------------
# per-function analysis
# ---------------------------------------------------------------------------------------


class FunctionFacts:
    """Kinds and sites of one function on the export path."""

    def __init__(self, model: SemanticModel, node: cst.FunctionDef, cls: Optional[ClassFacts], why: str,
                 caller: Optional["FunctionFacts"] = None) -> None:
        self.model = model
        self.node = node
        self.cls = cls
        self.name = node.name.value
        self.qualname = f"{cls.name}.{self.name}" if cls else self.name
        self.why = why  # forward | called | export-call
        self.caller = caller
        self.is_forward = why == "forward"
        self.kinds: dict[int, str] = {}
        self.env: dict[str, str] = {}
        self.local_funcs: dict[str, cst.FunctionDef] = {}
        self.branches: list[Branch] = []
        self.loops: list[Loop] = []
        self.calls: list[CallSite] = []
        self.subscripts: list[Subscript] = []
        self.state_writes: list[StateWrite] = []
        self.callees: list[tuple[cst.FunctionDef, Optional[ClassFacts], list[str], dict[str, str]]] = []
        #: id(callee FunctionDef) -> the first call of it here (call chains)
        self.callee_calls: dict[int, cst.Call] = {}
        self.self_name: Optional[str] = None
        self.imports = model.imports
        self._globals: set[str] = set()
        self._culprit: dict[int, cst.BaseExpression] = {}
        #: names read as self.<name>
        self.self_attr_reads: set[str] = set()
        #: order of self.<attr> events: (attr, "read" | "write" | "mutate")
        self.attr_events: list[tuple[str, str]] = []
        #: names handed to torch._check / _check_is_size / constrain_as_*: the author bounded them
        self.checked_names: set[str] = set()
        #: id(value expression) -> the name it was assigned to
        self.assigned_to: dict[int, str] = {}
        #: local names bound to a submodule of a known local class (loop over a ModuleList)
        self.module_vars: dict[str, ClassFacts] = {}
        self._conds: list[cst.BaseExpression] = []
        #: self.<attr> tested by an earlier `if ...: return` (a cache hit) in this function
        self._cache_hit_attrs: set[str] = set()
        #: the function whose source text contains this one (itself, or the caller for nested defs)
        if id(node) in model.function_indent or caller is None:
            self.anchor = (node, model.function_indent.get(id(node)))
        else:
            self.anchor = caller.anchor

    # ----- public queries -----
    def kind(self, node: cst.BaseExpression) -> str:
        return self.kinds.get(id(node), UNKNOWN)

    def culprit(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        return self._culprit.get(id(node))

    # ----- set-up -----
    def analyze(self, arg_kinds: Optional[list[str]], kw_kinds: dict[str, str]) -> None:
        fn = self.node
        params = list(fn.params.posonly_params) + list(fn.params.params)
        decos = {dotted(d.decorator) for d in fn.decorators}
        is_static = "staticmethod" in decos
        is_classmethod = "classmethod" in decos
        start = 0
        if self.cls is not None and not is_static and params:
            self.self_name = params[0].name.value
            self.env[self.self_name] = "self"
            start = 1
            if is_classmethod:
                self.env[self.self_name] = UNKNOWN
                self.self_name = None
        autograd_ctx = self.cls is not None and self.cls.is_autograd_function and is_static
        for i, p in enumerate(params[start:]):
            name = p.name.value
            k = annotation_kind(p.annotation, self.imports)
            if autograd_ctx and i == 0:
                self.env[name] = UNKNOWN  # ctx
                continue
            if arg_kinds is not None:
                ck = arg_kinds[i] if i < len(arg_kinds) else kw_kinds.get(name)
                if ck is None and p.default is not None:
                    ck = self._default_kind(p.default)
                if k in (TENSOR, CONST) and ck not in (NONE, SHAPE, DATA):
                    # the annotation is the author's contract, except that an `int` (or
                    # `list[int]`) annotation never hides a size or a tensor-derived number
                    # flowing in from the call sites
                    pass
                elif self.why == "cross-file" and _container_annotation(p.annotation):
                    # list[Tensor] / Union[Tensor, list[Tensor]]: the caller's value may be a
                    # Python sequence whatever its kind there
                    k = UNKNOWN
                elif ck is not None:
                    k = ck
            if k is None or k == NONE:
                if p.default is None:
                    k = TENSOR if self.why in ("forward", "export-call") or autograd_ctx else UNKNOWN
                else:
                    k = self._default_kind(p.default)
            self.env[name] = k
        for p in fn.params.kwonly_params:
            k = annotation_kind(p.annotation, self.imports)
            if k is None or k == NONE:
                k = self._default_kind(p.default) if p.default is not None else UNKNOWN
            self.env[p.name.value] = kw_kinds.get(p.name.value, k) if arg_kinds is not None else k
        for star in (fn.params.star_arg, fn.params.star_kwarg):
            if isinstance(star, cst.Param):
                self.env[star.name.value] = UNKNOWN
        self._block(body_statements(fn.body))

    def _default_kind(self, d: cst.BaseExpression) -> str:
        v = literal_value(d)
        if v is MISSING:
            return UNKNOWN
        return UNKNOWN if v is None else CONST

    # ----- statements -----
    def _block(self, stmts: Iterable[cst.CSTNode]) -> None:
        for st in stmts:
            self._stmt(st)
            if type(st) is cst.If and st.orelse is None and self._leaves_while_exporting(st):
                break  # `if is_tracing(): return`: what follows never runs under an exporter

    def _leaves_while_exporting(self, st: cst.If) -> bool:
        """An `if` whose body runs while exporting (an export guard) and always leaves the block."""
        if guard_polarity(st.test, self.imports, self.model.guard_helpers) != "else-not-exported":
            return False
        body = list(body_statements(st.body))
        last = body[-1] if body else None
        return (isinstance(last, cst.SimpleStatementLine) and bool(last.body)
                and isinstance(last.body[-1], (cst.Return, cst.Raise)))

    def _stmt(self, st: cst.CSTNode) -> None:
        t = type(st)
        if t is cst.SimpleStatementLine:
            for small in st.body:
                self._small(small)
        elif t is cst.If:
            self._if(st, "if")
        elif t is cst.For:
            it = self.eval(st.iter)
            loop_kind, over_tensor = self._iter_kind(st.iter, it)
            self.loops.append(Loop(st, st.iter, loop_kind, over_tensor))
            self._bind_iter(st.target, st.iter, it)
            sub = self._modulelist_class(st.iter)
            tgt = st.target
            if (sub is None and isinstance(st.iter, cst.Call) and isinstance(tgt, cst.Tuple) and len(tgt.elements) == 2
                    and st.iter.args and self._callee_name(st.iter) in ("enumerate", "builtins.enumerate")):
                sub = self._modulelist_class(st.iter.args[0].value)  # for i, layer in enumerate(self.layers)
                tgt = tgt.elements[1].value
            if sub is not None and isinstance(tgt, cst.Name):
                self.module_vars[tgt.value] = sub
                self.env[tgt.value] = MODULE
            before = dict(self.env)
            self._block(body_statements(st.body))
            self._merge(before, self.env)
            if st.orelse is not None:
                self._block(body_statements(st.orelse.body))
        elif t is cst.While:
            k = self._test(st.test)
            self.branches.append(Branch(st.test, k, "while", st, self._culprit.get(id(st.test))))
            before = dict(self.env)
            self._block(body_statements(st.body))
            self._merge(before, self.env)
            if st.orelse is not None:
                self._block(body_statements(st.orelse.body))
        elif t is cst.With:
            for item in st.items:
                k = self.eval(item.item)
                if item.asname is not None:
                    self._bind(item.asname.name, UNKNOWN if k != TENSOR else k)
            self._block(body_statements(st.body))
        elif t is cst.Try or t.__name__ == "TryStar":
            self._block(body_statements(st.body))
            for h in st.handlers:
                if h.name is not None:
                    self._bind(h.name.name, UNKNOWN)
                self._block(body_statements(h.body))
            if st.orelse is not None:
                self._block(body_statements(st.orelse.body))
            if st.finalbody is not None:
                self._block(body_statements(st.finalbody.body))
        elif t is cst.FunctionDef:
            self.local_funcs[st.name.value] = st
            self.env[st.name.value] = UNKNOWN
        elif t is cst.ClassDef:
            self.env[st.name.value] = UNKNOWN
        elif t.__name__ == "Match":
            self.eval(st.subject)
            for case in st.cases:
                self._block(body_statements(case.body))

    def _if(self, st: cst.If, construct: str) -> None:
        pol = guard_polarity(st.test, self.imports, self.model.guard_helpers)
        if pol is None:
            k = self._test(st.test)
            self.branches.append(Branch(st.test, k, construct, st, self._culprit.get(id(st.test))))
        else:
            # still give the test's sub-expressions kinds; never report on the guard itself
            self.eval(st.test)
        before = dict(self.env)
        if pol != "body-not-exported":
            self._conds.append(st.test)
            self._block(body_statements(st.body))
            self._conds.pop()
        if st.orelse is None and self.self_name is not None:
            body = list(body_statements(st.body))
            last = body[-1] if body else None
            if (isinstance(last, cst.SimpleStatementLine) and last.body and isinstance(last.body[-1], cst.Return)
                    and last.body[-1].value is not None):
                # `if n == self.cached_n and self.cached is not None: return self.cached`: attributes
                # written after this cache hit (one that returns a tested attribute) refill the cache
                tested = {n.attr.value for n in iter_nodes(st.test) if self._is_self_attr(n)}
                rv = last.body[-1].value
                # the hit returns the cached value itself (`return position_ids + self.delta` reuses a
                # value carried from an earlier call: state, still reported)
                if self._is_self_attr(rv) and rv.attr.value in tested:
                    self._cache_hit_attrs.update(tested)
        after_body = self.env
        self.env = dict(before)
        orelse = st.orelse
        if orelse is not None and pol != "else-not-exported":
            if isinstance(orelse, cst.If):
                self._if(orelse, "elif")
            else:
                self._block(body_statements(orelse.body))
        # merge
        merged = {}
        for name in set(after_body) | set(self.env):
            a = after_body.get(name)
            b = self.env.get(name)
            if a is None or b is None:
                merged[name] = a if b is None else b
            else:
                merged[name] = join(a, b) if a != b else a
        self.env = merged

    def _merge(self, before: dict[str, str], after: dict[str, str]) -> None:
        for name, k in list(after.items()):
            if name in before and before[name] != k:
                after[name] = join(before[name], k)

    def _small(self, s: cst.CSTNode) -> None:
        t = type(s)
        if t is cst.Expr:
            self.eval(s.value)
        elif t is cst.Assign:
            k = self.eval(s.value)
            if len(s.targets) == 1 and isinstance(s.targets[0].target, cst.Name):
                self.assigned_to[id(s.value)] = s.targets[0].target.value
            elif (len(s.targets) == 1 and isinstance(s.targets[0].target, (cst.Tuple, cst.List))
                  and isinstance(s.value, (cst.Tuple, cst.List))
                  and len(s.targets[0].target.elements) == len(s.value.elements)):
                # t, h, w = int(t), int(h), int(w)
                for te, ve in zip(s.targets[0].target.elements, s.value.elements):
                    if isinstance(te.value, cst.Name):
                        self.assigned_to[id(ve.value)] = te.value.value
            for tgt in s.targets:
                self._assign_target(tgt.target, k, s, "assign", s.value)
        elif t is cst.AnnAssign:
            if s.value is not None:
                k = self.eval(s.value)
                ak = annotation_kind(s.annotation, self.imports)
                # `n: int = x.shape[0]` stays a size: an annotation never overrides what flows in
                self._assign_target(s.target, k if ak in (None, UNKNOWN, NONE) or k in (SHAPE, DATA) else ak, s,
                                    "assign", s.value)
        elif t is cst.AugAssign:
            k = self.eval(s.value)
            tk = self.eval(s.target)
            self._assign_target(s.target, combine((k, tk)), s, "augassign", s.value)
        elif t is cst.Return:
            if s.value is not None:
                self.eval(s.value)
        elif t is cst.Assert:
            k = self._test(s.test)
            self.branches.append(Branch(s.test, k, "assert", s, self._culprit.get(id(s.test))))
            if s.msg is not None:
                self.eval(s.msg)
        elif t is cst.Raise:
            if s.exc is not None:
                self.eval(s.exc)
        elif t is cst.Global:
            for n in s.names:
                self._globals.add(n.name.value)
        elif t is cst.Del:
            pass
        elif t in (cst.Import, cst.ImportFrom):
            # function-local imports: extend a private copy of the import map
            if self.imports is self.model.imports:
                self.imports = self.model.imports.copy()
            self.imports.add(s)

    def _assign_target(self, tgt: cst.BaseExpression, k: str, stmt: cst.CSTNode, how: str,
                       value: Optional[cst.BaseExpression]) -> None:
        self.kinds.setdefault(id(tgt), UNKNOWN)  # every node of the function gets an entry (positions)
        if isinstance(tgt, cst.Name):
            name = tgt.value
            if name in self._globals:
                self.state_writes.append(StateWrite(stmt, f"global {name}", "global"))
            self.env[name] = k
            self.kinds[id(tgt)] = k
        elif isinstance(tgt, (cst.Tuple, cst.List)):
            elem = k
            if k == TENSOR or k == MASK:
                elem = TENSOR
            elif k in (SHAPE, DATA, CONST):
                elem = k
            else:
                elem = UNKNOWN
            if value is not None and isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(tgt.elements):
                for e, ve in zip(tgt.elements, value.elements):
                    if isinstance(e, (cst.Element, cst.StarredElement)):
                        self._assign_target(e.value, self.kinds.get(id(ve.value), UNKNOWN), stmt, how, None)
                return
            for e in tgt.elements:
                if isinstance(e, (cst.Element, cst.StarredElement)):
                    self._assign_target(e.value, elem, stmt, how, None)
        elif isinstance(tgt, cst.Attribute):
            base = tgt.value
            if self.self_name and isinstance(base, cst.Name) and base.value == self.self_name:
                self.state_writes.append(StateWrite(stmt, f"self.{tgt.attr.value}", how,
                                                    cached=self._under_unset_test(tgt.attr.value)))
                self.attr_events.append((tgt.attr.value, "write"))
            elif isinstance(base, cst.Name) and base.value in self._globals:
                self.state_writes.append(StateWrite(stmt, f"global {base.value}", how))
            else:
                self.eval(base)
        elif isinstance(tgt, cst.Subscript):
            vk = self.eval(tgt.value)
            for el in tgt.slice:
                self._eval_slice(el.slice)
            base = tgt.value
            if self._is_self_attr(base) and vk not in TENSORISH:
                self.state_writes.append(StateWrite(stmt, f"{dotted(base)}[...]", "subscript-assign",
                                                    cached=self._under_unset_test(base.attr.value)))
        elif isinstance(tgt, cst.StarredElement):
            self._assign_target(tgt.value, UNKNOWN, stmt, how, None)

    def _is_weight(self, e: cst.BaseExpression) -> bool:
        """`self.<parameter or buffer>` or `self.<submodule>.weight` / `.bias`."""
        if not isinstance(e, cst.Attribute) or self.cls is None:
            return False
        if self._is_self_attr(e):
            fact = self.cls.find_attr(e.attr.value)
            return fact is not None and fact.what in ("parameter", "buffer")
        inner = e.value
        if e.attr.value in ("weight", "bias") and self._is_self_attr(inner):
            fact = self.cls.find_attr(inner.attr.value)
            return fact is not None and fact.what == "submodule"
        return False

    def _under_unset_test(self, attr: str) -> bool:
        """Whether an enclosing `if` fills self.<attr> only when it is unset: `self.<attr> is None`,
        `not self.<attr>`, `key not in self.<attr>`, `not hasattr(self, "<attr>")`, possibly `or`-ed
        with a staleness test (`... or self.<attr>.shape[1] != n`)."""
        def disjuncts(t: cst.BaseExpression) -> list[cst.BaseExpression]:
            if isinstance(t, cst.BooleanOperation) and isinstance(t.operator, cst.Or):
                return disjuncts(t.left) + disjuncts(t.right)
            return [t]

        def mentions(t: cst.BaseExpression) -> bool:
            return any(self._is_self_attr(n) and n.attr.value == attr for n in iter_nodes(t))

        def unset(t: cst.BaseExpression) -> bool:
            if isinstance(t, cst.BooleanOperation) and isinstance(t.operator, cst.Or):
                # `self.X is None or self.X.shape[0] != n`: refilled when missing or stale; an
                # or-ed test on something else (`past_len == 0 or self.X is None`) keeps a value
                # from an earlier call on the other path: carried state
                ds = disjuncts(t)
                return any(unset(d) for d in ds) and all(mentions(d) for d in ds)
            if isinstance(t, cst.UnaryOperation) and isinstance(t.operator, cst.Not):
                x = t.expression
                if self._is_self_attr(x) and x.attr.value == attr:
                    return True
                if isinstance(x, cst.Call) and dotted(x.func) in ("hasattr", "getattr") and len(x.args) >= 2:
                    return literal_value(x.args[1].value) == attr
                return False
            if isinstance(t, cst.Comparison) and len(t.comparisons) == 1:
                op = t.comparisons[0].operator
                right = t.comparisons[0].comparator
                if isinstance(op, (cst.Is, cst.Equal)) and literal_value(right) is None:
                    left = t.left
                    if self._is_self_attr(left) and left.attr.value == attr:
                        return True
                    if isinstance(left, cst.Call) and dotted(left.func) == "getattr" and len(left.args) >= 2:
                        return literal_value(left.args[1].value) == attr
                if isinstance(op, cst.NotIn) and self._is_self_attr(right) and right.attr.value == attr:
                    return True
            return False

        return attr in self._cache_hit_attrs or any(unset(c) for c in self._conds)

    def _is_self_attr(self, e: cst.BaseExpression) -> bool:
        return (
            self.self_name is not None
            and isinstance(e, cst.Attribute)
            and isinstance(e.value, cst.Name)
            and e.value.value == self.self_name
        )

    def _bind(self, tgt: cst.BaseExpression, k: str) -> None:
        if isinstance(tgt, cst.Name):
            self.env[tgt.value] = k
            self.kinds[id(tgt)] = k
        elif isinstance(tgt, (cst.Tuple, cst.List)):
            for e in tgt.elements:
                if isinstance(e, (cst.Element, cst.StarredElement)):
                    self._bind(e.value, k if k in (TENSOR, SHAPE, DATA, CONST) else UNKNOWN)

    def _test(self, test: cst.BaseExpression) -> str:
        """Evaluate a boolean-context expression; returns DATA / SHAPE / CONST / UNKNOWN."""
        if isinstance(test, cst.BooleanOperation):
            a = self._test(test.left)
            b = self._test(test.right)
            self.kinds[id(test)] = combine((self.kind(test.left), self.kind(test.right)))
            k = worst(a, b)
            c = self._culprit.get(id(test.left)) if a == k else self._culprit.get(id(test.right))
            if c is None:
                c = test.left if a == k else test.right
            self._culprit[id(test)] = c
            return k
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            k = self._test(test.expression)
            self.kinds[id(test)] = CONST if k == CONST else k
            self._culprit[id(test)] = self._culprit.get(id(test.expression), test.expression)
            return k
        if isinstance(test, cst.Comparison):
            ops = [ct.operator for ct in test.comparisons]
            if all(isinstance(o, (cst.Is, cst.IsNot)) for o in ops):
                self.eval(test)
                return CONST
        k = self.eval(test)
        tk = truth_kind(k)
        if id(test) not in self._culprit:
            self._culprit[id(test)] = test
        return tk

    def _iter_kind(self, it: cst.BaseExpression, k: str) -> tuple[str, bool]:
        if isinstance(it, cst.Call):
            q = self._callee_name(it)
            if q in ("range", "builtins.range"):
                kinds = [self.kind(a.value) for a in it.args]
                ck = combine(kinds) if kinds else CONST
                return (DATA if ck in (DATA,) or ck in TENSORISH else ck), False
            if q in ("enumerate", "zip", "reversed", "sorted"):
                ks = [self._iter_kind(a.value, self.kind(a.value))[0] for a in it.args if a.keyword is None]
                if q == "zip" and any(x in (CONST, UNKNOWN) for x in ks):
                    # zip stops at its shortest argument: a Python-length one bounds it
                    return (CONST if CONST in ks else UNKNOWN), False
                out = CONST
                for x in ks:
                    out = worst(out, x)
                over = any(self.kind(a.value) in TENSORISH for a in it.args if a.keyword is None)
                return out, over
            if isinstance(it.func, cst.Attribute):
                m = it.func.attr.value
                if m == "tolist":
                    # one iteration per row: the trip count is the receiver's first dimension
                    # (measured: `for t, h, w in grid.tolist()` exports with torch.export and
                    # onnx-dynamo); the elements are data (EXL102 for the legacy tracer)
                    if self.kind(it.func.value) in TENSORISH:
                        return SHAPE, True
                    return DATA, False
                if m in DDS_OPS:
                    return DATA, True
                if self._static_pieces(m, it, method=True):
                    return CONST, False  # a fixed number of pieces
            if q is not None and q.startswith("torch.") and self._static_pieces(q.rsplit(".", 1)[-1], it, method=False):
                return CONST, False
            if q is not None and q.rsplit(".", 1)[-1] in DDS_OPS and q.startswith("torch."):
                return DATA, True
        if k in TENSORISH:
            return SHAPE, True
        if k == DATA:
            return DATA, False
        if k == SHAPE:
            return CONST, False  # iterating x.shape: the rank is static
        if k == CONST:
            return CONST, False
        return UNKNOWN, False

    def _elem_kind(self, it: cst.BaseExpression, k: str) -> str:
        if isinstance(it, cst.Call):
            q = self._callee_name(it)
            if q in ("range", "builtins.range"):
                kinds = [self.kind(a.value) for a in it.args]
                ck = combine(kinds) if kinds else CONST
                return ck if ck in (SHAPE, DATA, CONST) else UNKNOWN
            if q in ("enumerate", "zip"):
                return UNKNOWN
        if k in TENSORISH:
            return TENSOR
        if k in (SHAPE, DATA, CONST):
            return k
        return UNKNOWN

    def _bind_iter(self, tgt: cst.BaseExpression, it: cst.BaseExpression, k: str) -> None:
        """Bind a loop target: `for a, b in zip(t, u)` / `for i, row in enumerate(t)` element by
        element (a tensor's elements are tensors, enumerate's index counts a dim), else as a whole."""
        if isinstance(it, cst.Call) and isinstance(tgt, (cst.Tuple, cst.List)):
            q = self._callee_name(it)
            pos = [a for a in it.args if a.keyword is None and not a.star]
            elts = [e.value for e in tgt.elements if isinstance(e, cst.Element)]
            if len(elts) == len(tgt.elements):
                if q in ("zip", "builtins.zip") and len(pos) == len(elts) and len(pos) == len(it.args):
                    for e, a in zip(elts, pos):
                        self._bind(e, self._elem_kind(a.value, self.kind(a.value)))
                    return
                if q in ("enumerate", "builtins.enumerate") and len(pos) == 1 and len(elts) == 2:
                    ik, _ = self._iter_kind(pos[0].value, self.kind(pos[0].value))
                    # the index is a plain Python int in each (unrolled) iteration: the loop itself
                    # is the finding
                    self._bind(elts[0], DATA if ik == DATA else CONST if ik in (SHAPE, CONST) else UNKNOWN)
                    inner = elts[1]
                    if not (isinstance(inner, cst.Name) and self.env.get(inner.value) == MODULE):
                        self._bind(inner, self._elem_kind(pos[0].value, self.kind(pos[0].value)))
                    return
        self._bind(tgt, self._elem_kind(it, k))

    def _static_pieces(self, name: str, call: cst.Call, method: bool) -> bool:
        """chunk(n) / split([a, b, c]) / tensor_split([..]) give a fixed number of tensors."""
        if name == "chunk":
            return True
        if name not in ("split", "tensor_split", "split_with_sizes"):
            return False
        pos = [a for a in call.args if a.keyword is None]
        idx = 0 if method else 1
        arg = pos[idx].value if idx < len(pos) else None
        if arg is None:
            for a in call.args:
                if a.keyword is not None and a.keyword.value in ("split_size_or_sections", "split_sizes", "sections", "indices_or_sections"):
                    arg = a.value
        if arg is None:
            return False
        if isinstance(arg, (cst.List, cst.Tuple)):
            return True
        if self._is_self_attr(arg) and self.cls is not None:
            fact = self.cls.find_attr(arg.attr.value)
            if fact is not None and isinstance(fact.value, (cst.List, cst.Tuple, cst.ListComp)):
                return True
        return False

    def _modulelist_class(self, it: cst.BaseExpression) -> Optional[ClassFacts]:
        if isinstance(it, cst.Subscript):
            it = it.value
        if self._is_self_attr(it) and self.cls is not None:
            fact = self.cls.find_attr(it.attr.value)
            if fact is not None and fact.what == "submodule":
                return self.model.submodule_class(fact)
        return None

    def _callee_name(self, call: cst.Call) -> Optional[str]:
        q = self.imports.resolve(call.func)
        if q is not None:
            return q
        if isinstance(call.func, cst.Name):
            return call.func.value
        return None

    # ----- expressions -----
    def eval(self, e: cst.BaseExpression) -> str:
        k = self._eval(e)
        self.kinds[id(e)] = k
        return k

    def _eval(self, e: cst.BaseExpression) -> str:
        t = type(e)
        if t is cst.Name:
            v = e.value
            if v in self.env:
                k = self.env[v]
                return UNKNOWN if k == "self" else k
            if v in ("True", "False"):
                return CONST
            if v == "None":
                return NONE
            if v in self.model.module_consts:
                mk = self.model.module_consts[v]
                return mk if mk in (CONST, NONE) else UNKNOWN
            fn = self.model.module_functions.get(v)
            if fn is not None and not self._jit_skipped(fn) and v not in self.model.guard_helpers:
                # a module function handed on as a value (`get_interface(..., eager_attention_forward)`,
                # a callback): it runs in the graph, with unknown arguments (annotations apply)
                self.callees.append((fn, None, [], {}))
            return UNKNOWN
        if t in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis):
            return CONST
        if t is cst.FormattedString:
            worst_k = CONST
            for part in e.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    pk = self.eval(part.expression)
                    if pk in TENSORISH or pk == DATA:
                        worst_k = DATA
            return CONST if worst_k == CONST else DATA
        if t is cst.Attribute:
            return self._attribute(e)
        if t is cst.Call:
            return self._call(e)
        if t is cst.Subscript:
            return self._subscript(e)
        if t is cst.BinaryOperation:
            a = self.eval(e.left)
            b = self.eval(e.right)
            if isinstance(e.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)) and a in TENSORISH and b in TENSORISH:
                return MASK if a == MASK or b == MASK else TENSOR
            k = combine((a, b))
            self._culprit[id(e)] = e.left if a == k else e.right
            return k
        if t is cst.UnaryOperation:
            a = self.eval(e.expression)
            if isinstance(e.operator, cst.Not):
                return truth_kind(a) if a != UNKNOWN else UNKNOWN
            if isinstance(e.operator, cst.BitInvert) and a == MASK:
                return MASK
            return a
        if t is cst.BooleanOperation:
            a = self.eval(e.left)
            b = self.eval(e.right)
            return combine((a, b)) if (a in TENSORISH or b in TENSORISH) else combine((truth_kind(a) if a != CONST else a, b))
        if t is cst.Comparison:
            kinds = [self.eval(e.left)]
            only_is = True
            for ct in e.comparisons:
                kinds.append(self.eval(ct.comparator))
                if not isinstance(ct.operator, (cst.Is, cst.IsNot)):
                    only_is = False
            if only_is:
                return CONST
            if any(isinstance(ct.operator, (cst.In, cst.NotIn)) for ct in e.comparisons):
                # `k in kwargs`, `x in (1, 2)`: Python containment, unless the container is a tensor
                container = kinds[-1]
                if container in TENSORISH:
                    return DATA
                return kinds[0] if kinds[0] in (SHAPE, DATA) else (CONST if container == CONST else UNKNOWN)
            k = combine(kinds)
            if k == TENSOR:
                return MASK
            return k
        if t is cst.IfExp:
            pol = guard_polarity(e.test, self.imports, self.model.guard_helpers)
            if pol is not None:
                # `a if torch.jit.is_tracing() else b`: only the exported side is analysed
                self.eval(e.test)
                return self.eval(e.body if pol == "else-not-exported" else e.orelse)
            tk = self._test(e.test)
            self.branches.append(Branch(e.test, tk, "ifexp", e, self._culprit.get(id(e.test))))
            return join(self.eval(e.body), self.eval(e.orelse))
        if t in (cst.Tuple, cst.List, cst.Set):
            ks = []
            for el in e.elements:
                ks.append(self.eval(el.value))
            if ks and all(k in (CONST, NONE) for k in ks):
                return CONST
            if ks and all(k == SHAPE or k == CONST for k in ks):
                return SHAPE
            return UNKNOWN  # a Python sequence (of tensors or mixed): not itself a tensor
        if t is cst.Dict:
            for el in e.elements:
                if isinstance(el, cst.DictElement):
                    self.eval(el.key)
                    self.eval(el.value)
                else:
                    self.eval(el.value)
            return UNKNOWN
        if t in (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp):
            return self._comprehension(e)
        if t is cst.Lambda:
            saved = dict(self.env)
            for p in e.params.params:
                self.env[p.name.value] = UNKNOWN
            self.eval(e.body)
            self.env = saved
            return UNKNOWN
        if t is cst.NamedExpr:
            k = self.eval(e.value)
            self._bind(e.target, k)
            return k
        if t is cst.Await:
            return self.eval(e.expression)
        if t is cst.StarredElement or t is cst.Element:
            return self.eval(e.value)
        if t is cst.Yield:
            if e.value is not None and isinstance(e.value, cst.BaseExpression):
                self.eval(e.value)
            return UNKNOWN
        return UNKNOWN

    def _comprehension(self, e: Any) -> str:
        saved = dict(self.env)
        f = e.for_in
        while f is not None:
            ik = self.eval(f.iter)
            lk, over = self._iter_kind(f.iter, ik)
            self.loops.append(Loop(f, f.iter, lk, over))
            self._bind_iter(f.target, f.iter, ik)
            for cond in f.ifs:
                k = self._test(cond.test)
                self.branches.append(Branch(cond.test, k, "comprehension", cond, self._culprit.get(id(cond.test))))
            f = f.inner_for_in
        if isinstance(e, cst.DictComp):
            self.eval(e.key)
            self.eval(e.value)
            res = UNKNOWN
        else:
            ek = self.eval(e.elt)
            res = CONST if ek == CONST else UNKNOWN  # a list/generator, never a tensor
        self.env = saved
        return res

    def _attribute(self, e: cst.Attribute) -> str:
        attr = e.attr.value
        base = e.value
        # self.X
        if self.self_name is not None and isinstance(base, cst.Name) and base.value == self.self_name:
            self.self_attr_reads.add(attr)
            self.attr_events.append((attr, "read"))
            if attr == "training":
                return CONST
            if self.cls is not None:
                fact = self.cls.find_attr(attr)
                if fact is not None:
                    return {
                        "submodule": MODULE,
                        "parameter": TENSOR,
                        "buffer": TENSOR,
                        "tensor": TENSOR,
                        "config": CONST,
                    }.get(fact.what, UNKNOWN)
                if attr in self.cls.methods:
                    return UNKNOWN
            return UNKNOWN
        bk = self.eval(base)
        if bk in TENSORISH:
            if attr in TENSOR_ATTRS_SHAPE:
                if self._is_weight(base):
                    return CONST  # a parameter's / buffer's shape is fixed by __init__, never dynamic
                self._culprit[id(e)] = e
                return SHAPE
            if attr in TENSOR_ATTRS_CONST:
                return CONST
            return TENSOR  # .T, .mT, .data, .real, .grad ...
        if bk == SHAPE:
            return SHAPE
        if bk == DATA:
            if attr in TENSOR_ATTRS_SHAPE:
                # `x.numpy().shape`: an array's shape is the tensor's sizes (symbolic under
                # torch.export strict, which traces numpy), not a value read from the data
                self._culprit[id(e)] = e
                return SHAPE
            return DATA
        if bk == CONST:
            return CONST
        if bk == MODULE:
            if attr in ("weight", "bias", "running_mean", "running_var", "in_proj_weight", "in_proj_bias"):
                return TENSOR
            if attr == "training":
                return CONST
            return UNKNOWN
        return UNKNOWN

    def _subscript(self, e: cst.Subscript) -> str:
        vk = self.eval(e.value)
        index_kinds = []
        mask = False
        for el in e.slice:
            k = self._eval_slice(el.slice)
            index_kinds.append(k)
            if k == MASK:
                mask = True
        if vk in TENSORISH:
            self.subscripts.append(Subscript(e, vk, index_kinds, mask))
            return TENSOR
        if vk == SHAPE:
            self._culprit[id(e)] = e
            return SHAPE
        if vk == DATA:
            return DATA
        if vk == CONST:
            return CONST if all(k in (CONST, NONE) for k in index_kinds) else UNKNOWN
        return UNKNOWN

    def _eval_slice(self, s: Any) -> str:
        if isinstance(s, cst.Index):
            return self.eval(s.value)
        if isinstance(s, cst.Slice):
            k = CONST
            for part in (s.lower, s.upper, s.step):
                if part is not None:
                    pk = self.eval(part)
                    if pk in TENSORISH:
                        pk = UNKNOWN  # a tensor bound stays in the graph
                    k = worst(k, pk) if pk in (DATA, SHAPE, UNKNOWN, CONST) else worst(k, UNKNOWN)
            return k
        return UNKNOWN

    def _call(self, e: cst.Call) -> str:
        func = e.func
        fname = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        if "check" in fname.lower() and any(isinstance(a.value, cst.Lambda) for a in e.args[1:]):
            # torch._check(cond, lambda: f"... {int(n)}"): the message callback runs only when
            # the check fails, never in an export that passes it; its body is not on the path
            arg_kinds = [UNKNOWN if i and isinstance(a.value, cst.Lambda) else self.eval(a.value)
                         for i, a in enumerate(e.args)]
        else:
            arg_kinds = [self.eval(a.value) for a in e.args]
        method = None
        receiver_kind = None
        qualname = None
        kind = UNKNOWN
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            base = func.value
            q = self.imports.resolve(func)
            if q is not None:
                qualname = q
                kind = self._qual_call_kind(q, e, arg_kinds)
                self._maybe_callee_qual(q, e, arg_kinds)
            elif self.self_name is not None and isinstance(base, cst.Name) and base.value == self.self_name:
                receiver_kind = "self"
                self.self_attr_reads.add(method)
                kind = self._self_method_call(method, e, arg_kinds)
            elif isinstance(base, cst.Call) and isinstance(base.func, cst.Name) and base.func.value == "super":
                self.eval(base)
                receiver_kind = "super"
                if self.cls is not None:
                    for b in self.cls.local_bases:
                        r = b.find_method(method)
                        if r is not None:
                            self._add_callee(r[1], r[0], e, arg_kinds, skip_self=True)
                            break
                kind = TENSOR if method == "forward" else UNKNOWN
            else:
                receiver_kind = self.eval(base)
                if receiver_kind in TENSORISH:
                    qualname = f"torch.Tensor.{method}"
                    kind = self._tensor_method_kind(method)
                    if kind == SHAPE and self._is_weight(base):
                        kind = CONST  # self.weight.size(0): fixed by __init__
                elif receiver_kind == SHAPE:
                    kind = SHAPE if method not in ("__len__",) else CONST
                elif receiver_kind == DATA:
                    kind = DATA
                elif receiver_kind == CONST:
                    kind = CONST if method not in ("apply",) else UNKNOWN
                elif receiver_kind == MODULE:
                    kind = TENSOR if method == "forward" else UNKNOWN
                    if kind == UNKNOWN and self.cls is not None and self._is_self_attr(base):
                        # self.sub.method(x), sub's class in another file (summarised there)
                        kind = self.model.call_returns.get(f"{self.cls.name}.self.{base.attr.value}.{method}", UNKNOWN)
                d = dotted(base)
                if method == "apply" and d is not None:
                    c = self.model.classes.get(d)
                    if c is not None and c.is_autograd_function:
                        qualname = f"{d}.apply"
                        kind = TENSOR
                        fwd = c.find_method("forward")
                        if fwd is not None:
                            # Function.forward(ctx, *args): ctx first, then the call's arguments
                            self._add_callee(fwd[1], fwd[0], e, arg_kinds, skip_self=False, lead=1)
                elif d is not None and d in self.model.classes:
                    c = self.model.classes[d]
                    r = c.find_method(method)
                    if r is not None:
                        self._add_callee(r[1], r[0], e, arg_kinds, skip_self=False)
        elif isinstance(func, cst.Name):
            name = func.value
            if name in self.module_vars:
                r = self.module_vars[name].find_method("forward")
                if r is not None:
                    self._add_callee(r[1], r[0], e, arg_kinds, skip_self=True)
                kind = TENSOR
            elif name in self.env and self.env[name] == MODULE:
                kind = TENSOR
            elif name in self.local_funcs:
                self._add_callee(self.local_funcs[name], self.cls, e, arg_kinds, skip_self=False, local=True)
            else:
                q = self.imports.resolve(func)
                if q is not None:
                    qualname = q
                    kind = self._qual_call_kind(q, e, arg_kinds)
                    self._maybe_callee_qual(q, e, arg_kinds)
                elif name in self.model.module_functions:
                    qualname = name
                    self._add_callee(self.model.module_functions[name], None, e, arg_kinds, skip_self=False)
                    if name in self.model.guard_helpers:
                        kind = CONST  # returns a Python bool (an export guard)
                elif name in self.model.classes:
                    qualname = name
                    c = self.model.classes[name]
                    kind = MODULE if c.is_module else UNKNOWN
                else:
                    qualname = name
                    kind = self._builtin_kind(name, e, arg_kinds)
        else:
            fk = self.eval(func)
            kind = TENSOR if fk == MODULE else UNKNOWN
        if qualname in CHECK_FUNCS:
            for a in e.args:
                for n in _names_in(a.value):
                    self.checked_names.add(n)
        if (method in ("append", "extend", "insert", "update", "pop", "clear", "setdefault", "add")
                and isinstance(func, cst.Attribute) and self._is_self_attr(func.value)):
            attr = func.value.attr.value
            if self.attr_events and self.attr_events[-1] == (attr, "read"):
                self.attr_events.pop()
            self.attr_events.append((attr, "mutate"))
        site = CallSite(e, qualname, method, receiver_kind, arg_kinds, kind, self, conds=tuple(self._conds))
        self.calls.append(site)
        return kind

    def _self_method_call(self, method: str, e: cst.Call, arg_kinds: list[str]) -> str:
        c = self.cls
        if c is None:
            return UNKNOWN
        fact = c.find_attr(method)
        if fact is not None and fact.what == "submodule":
            sub = self.model.submodule_class(fact)
            if sub is not None:
                r = sub.find_method("forward")
                if r is not None:
                    self._add_callee(r[1], r[0], e, arg_kinds, skip_self=True)
            return TENSOR  # self.layer(x)
        r = c.find_method(method)
        if r is not None:
            self._add_callee(r[1], r[0], e, arg_kinds, skip_self=True)
            if method == "forward":
                return TENSOR
            return UNKNOWN
        if method in ("register_buffer", "register_parameter", "parameters", "buffers", "named_parameters",
                      "modules", "children", "state_dict", "to", "eval", "train", "cuda", "cpu", "half", "float"):
            return UNKNOWN
        # a method inherited from a base class in another file (summarised there)
        return self.model.call_returns.get(f"{c.name}.self.{method}", UNKNOWN)

    def _add_callee(self, fn: cst.FunctionDef, cls: Optional[ClassFacts], call: cst.Call, arg_kinds: list[str],
                    skip_self: bool, local: bool = False, lead: int = 0) -> None:
        if self._jit_skipped(fn):
            return  # @torch.jit.unused / @torch.jit.ignore: the author keeps it Python-side
        pos: list[str] = [UNKNOWN] * lead
        kw: dict[str, str] = {}
        for a, k in zip(call.args, arg_kinds):
            if a.star:
                # unknown arity: bail out of positional mapping
                pos.append(UNKNOWN)
                continue
            if a.keyword is None:
                pos.append(k)
            else:
                kw[a.keyword.value] = k
        if local:
            # a nested function sees the enclosing function's names
            facts_cls = cls
        else:
            facts_cls = cls
        self.callees.append((fn, facts_cls, pos, kw))
        self.callee_calls.setdefault(id(fn), call)

    def _jit_skipped(self, fn: cst.FunctionDef) -> bool:
        for d in fn.decorators:
            dec = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
            q = self.imports.resolve(dec) or dotted(dec) or ""
            if q in JIT_SKIP_DECORATORS or q.endswith(("jit.unused", "jit.ignore")):
                return True
        return False

    def _maybe_callee_qual(self, q: str, e: cst.Call, arg_kinds: list[str]) -> None:
        # a function of this file reached through an alias or a class attribute
        head = q.split(".", 1)[0]
        if head in self.model.module_functions and "." not in q:
            self._add_callee(self.model.module_functions[head], None, e, arg_kinds, skip_self=False)

    def _qual_call_kind(self, q: str, e: cst.Call, arg_kinds: list[str]) -> str:
        if q.startswith("torch."):
            last = q.rsplit(".", 1)[-1]
            if q in EXPORT_GUARDS or last in EXPORT_GUARD_NAMES or q in NEVER_DURING_EXPORT:
                return CONST
            return _torch_func_kind(q)
        if q.startswith(("math.", "numpy.", "random.", "statistics.")):
            k = combine(arg_kinds) if arg_kinds else CONST
            if k in TENSORISH:
                return DATA
            return k
        last = q.rsplit(".", 1)[-1]
        if last in EXPORT_GUARD_NAMES or last in NEVER_DURING_EXPORT_NAMES:
            return CONST
        if q in self.model.classes:
            return MODULE if self.model.classes[q].is_module else UNKNOWN
        if q.startswith(".") or not q.startswith(("builtins", "typing", "collections", "functools", "itertools", "operator")):
            # imported from elsewhere: what the project knows it returns (a function of another
            # file, summarised there), else unknown
            return self.model.call_returns.get(q, UNKNOWN)
        return UNKNOWN

    def _builtin_kind(self, name: str, e: cst.Call, arg_kinds: list[str]) -> str:
        if name in CONST_BUILTINS:
            return CONST
        if name in SCALAR_CONVERSIONS:
            if not arg_kinds:
                return CONST
            k = arg_kinds[0]
            if k in TENSORISH:
                self._culprit[id(e)] = e
                return DATA
            if k in (SHAPE, DATA, CONST):
                if k == SHAPE:
                    self._culprit[id(e)] = self._culprit.get(id(e.args[0].value), e)
                return k
            return UNKNOWN
        if name == "len":
            if arg_kinds and arg_kinds[0] in TENSORISH:
                self._culprit[id(e)] = e
                return SHAPE
            if arg_kinds and arg_kinds[0] == DATA:
                return DATA
            return CONST if arg_kinds and arg_kinds[0] in (SHAPE, CONST) else UNKNOWN
        if name in ("min", "max", "abs", "round", "sum", "pow", "divmod"):
            if not arg_kinds:
                return UNKNOWN
            k = combine(arg_kinds)
            if k in TENSORISH and name in ("min", "max", "sum") and len(arg_kinds) == 1:
                return TENSOR
            if k in TENSORISH and name in ("min", "max"):
                return DATA  # comparing tensors in Python
            return k
        if name in ("any", "all"):
            if arg_kinds and arg_kinds[0] in TENSORISH:
                return DATA
            return arg_kinds[0] if arg_kinds and arg_kinds[0] in (SHAPE, DATA, CONST) else UNKNOWN
        if name in ("list", "tuple", "sorted", "reversed", "set"):
            if arg_kinds and arg_kinds[0] in TENSORISH:
                return UNKNOWN
            return arg_kinds[0] if arg_kinds and arg_kinds[0] in (SHAPE, CONST, DATA) else UNKNOWN
        if name == "range":
            return combine(arg_kinds) if arg_kinds else CONST
        if name in ("getattr",):
            return UNKNOWN
        return UNKNOWN

    def _tensor_method_kind(self, method: str) -> str:
        if method in TENSOR_METHODS_DATA:
            return DATA
        if method in TENSOR_METHODS_SHAPE:
            return SHAPE
        if method in TENSOR_METHODS_CONST:
            return CONST
        if method in TENSOR_METHODS_MASK:
            return MASK
        return TENSOR


def _names_in(e: cst.BaseExpression) -> Iterator[str]:
    """Plain names read in a (small) expression."""
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            yield n.value
        elif isinstance(n, cst.Attribute):
            stack.append(n.value)
        elif isinstance(n, cst.Comparison):
            stack.append(n.left)
            stack.extend(ct.comparator for ct in n.comparisons)
        elif isinstance(n, cst.BinaryOperation) or isinstance(n, cst.BooleanOperation):
            stack.extend((n.left, n.right))
        elif isinstance(n, cst.UnaryOperation):
            stack.append(n.expression)
        elif isinstance(n, cst.Call):
            stack.extend(a.value for a in n.args)
            stack.append(n.func)
        elif isinstance(n, cst.Subscript):
            stack.append(n.value)


def names_in(e: cst.BaseExpression) -> set[str]:
    return set(_names_in(e))


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
#: fields that only hold whitespace, comments and punctuation
_TRIVIA = ("whitespace", "lpar", "rpar", "comma", "leading_lines", "lines_after_decorators", "header",
           "footer", "semicolon", "equal", "colon", "dot", "star", "operator", "default_indent",
           "default_newline", "newline", "trailing_whitespace", "lbracket", "rbracket", "lbrace", "rbrace")


def child_nodes(n: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes of n without whitespace and punctuation, read from its dataclass fields:
    several times cheaper than ``CSTNode.children``, which runs libcst's visitor machinery."""
    t = type(n)
    names = _CHILD_FIELDS.get(t)
    if names is None:
        import dataclasses

        names = tuple(f.name for f in dataclasses.fields(t)
                      if not any(f.name.startswith(x) for x in _TRIVIA) and f.name != "evaluated_value")
        _CHILD_FIELDS[t] = names
    out: list[cst.CSTNode] = []
    for name in names:
        v = getattr(n, name)
        if isinstance(v, cst.CSTNode):
            out.append(v)
        elif isinstance(v, (tuple, list)):
            out.extend(x for x in v if isinstance(x, cst.CSTNode))
    return out


def iter_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Pre-order over a subtree, whitespace and punctuation left out."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(child_nodes(n)))
