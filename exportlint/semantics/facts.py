"""The facts the semantic model records and the rules query.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Union

import libcst as cst

from exportlint.semantics.kinds import (
    UNKNOWN,
)

if TYPE_CHECKING:  # pragma: no cover
    from exportlint.semantics.flow import FunctionFacts

from exportlint.semantics.apis import (  # noqa: F401
    MISSING,
    Sequence_Arg,
)
from exportlint.semantics.nodes import (  # noqa: F401
    literal_value,
)

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
    #: written in an `except` handler (`except RuntimeError: ... self.chunk = n // 2`): it runs
    #: only when the traced body raises, which an export that succeeds never sees
    in_handler: bool = False


@dataclass
class AttrFact:
    name: str
    what: str  # submodule | parameter | buffer | tensor | config | unknown
    node: cst.CSTNode  # where it was set (the Assign / register_buffer call)
    value: Optional[cst.BaseExpression] = None
    #: (submodules) the earlier values ``__init__`` binds the same attribute to (``if b_idx % 2
    #: == 0: self.attn = A(...)`` / ``else: self.attn = B(...)``); ``value`` is the last one
    #: (SemanticModel.submodule_classes)
    alts: tuple = ()


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
