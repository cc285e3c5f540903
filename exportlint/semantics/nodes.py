"""Helpers over libcst nodes: literal values, annotations, export guards, walking.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional

import libcst as cst

from exportlint.lightcst import parse_expression  # (the native parser: a light libcst defers the entry points)
from exportlint.semantics.apis import (  # noqa: F401
    ANNOT_CONST,
    ANNOT_TENSOR,
    ALL_EXPORTERS,
    EXPORT_GUARD_EXPORTERS,
    EXPORT_GUARD_NAME_EXPORTERS,
    EXPORT_GUARD_NAMES,
    EXPORT_GUARDS,
    MISSING,
    NEVER_DURING_EXPORT,
    NEVER_DURING_EXPORT_NAMES,
)
from exportlint.semantics.imports import ImportMap, dotted
from exportlint.semantics.kinds import (
    CONST,
    NONE,
    TENSOR,
    UNKNOWN,
)

# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def literal_value(node: cst.BaseExpression) -> Any:
    """The Python value of a literal expression, or MISSING."""
    t = type(node)  # (exact types: concrete libcst classes, none subclassed: see _TARGET_TYPES)
    if t is cst.Integer:
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return MISSING
    if t is cst.Float:
        try:
            return float(node.value.replace("_", ""))
        except ValueError:
            return MISSING
    if t is cst.SimpleString:
        try:
            v = node.evaluated_value
        except Exception:  # pragma: no cover - defensive
            return MISSING
        return v
    if t is cst.ConcatenatedString:
        try:
            return node.evaluated_value
        except Exception:
            return MISSING
    if t is cst.Name:
        if node.value == "True":
            return True
        if node.value == "False":
            return False
        if node.value == "None":
            return None
        return MISSING
    if t is cst.UnaryOperation and type(node.operator) is cst.Minus:
        v = literal_value(node.expression)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v
        return MISSING
    if t is cst.Tuple or t is cst.List:
        out = []
        for e in node.elements:
            if not isinstance(e, cst.Element):
                return MISSING
            v = literal_value(e.value)
            if v is MISSING:
                return MISSING
            out.append(v)
        return tuple(out) if t is cst.Tuple else out
    if t is cst.Dict:
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
                e = parse_expression(v)
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


def container_annotation(ann: Optional[cst.Annotation]) -> bool:
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


def guard_set(node: cst.BaseExpression, imports: ImportMap,
              helpers: Optional[dict] = None) -> Optional[frozenset]:
    """The exporters under which a guard call returns True (empty: never while exporting), or
    None when the node is no guard call."""
    if not isinstance(node, cst.Call):
        return None
    if helpers and isinstance(node.func, cst.Name) and node.func.value in helpers:
        t, f = helpers[node.func.value]
        return t if f == ALL_EXPORTERS - t else None
    q = imports.resolve(node.func) or dotted(node.func) or ""
    last = q.rsplit(".", 1)[-1]
    if q in EXPORT_GUARD_EXPORTERS:
        return EXPORT_GUARD_EXPORTERS[q]
    if q in EXPORT_GUARDS:
        return ALL_EXPORTERS
    if last in EXPORT_GUARD_NAMES:
        return EXPORT_GUARD_NAME_EXPORTERS.get(last, ALL_EXPORTERS)
    if q in NEVER_DURING_EXPORT or last in NEVER_DURING_EXPORT_NAMES:
        return frozenset()
    return None


def _is_guard_call(node: cst.BaseExpression, imports: ImportMap,
                   helpers: Optional[dict] = None) -> Optional[bool]:
    """True: True under every exporter; False: under none; None: no guard (or it depends on
    the exporter)."""
    s = guard_set(node, imports, helpers)
    if s is None:
        return None
    return True if s == ALL_EXPORTERS else (False if not s else None)


def _sides(e: cst.BaseExpression, imports: ImportMap, helpers) -> tuple[frozenset, frozenset, bool]:
    """(exporters under which e can be True, ... can be False, whether e holds a guard)."""
    te = type(e)  # (exact types: concrete libcst classes, none subclassed: see _TARGET_TYPES)
    if te is cst.UnaryOperation and type(e.operator) is cst.Not:
        t, f, g = _sides(e.expression, imports, helpers)
        return f, t, g
    if te is cst.BooleanOperation:
        t1, f1, g1 = _sides(e.left, imports, helpers)
        t2, f2, g2 = _sides(e.right, imports, helpers)
        if type(e.operator) is cst.And:
            return t1 & t2, f1 | f2, g1 or g2
        return t1 | t2, f1 & f2, g1 or g2
    if te is cst.Attribute and e.attr.value == "training":
        # export captures inference: models are exported in eval mode (EXL501 checks that)
        return frozenset(), ALL_EXPORTERS, True
    if helpers and te is cst.Call and type(e.func) is cst.Name and e.func.value in helpers:
        t, f = helpers[e.func.value]
        return t, f, True
    if helpers and te is cst.Name and "=" + e.value in helpers:
        # a local bound to a guard (`is_compiling = torch.compiler.is_compiling()`): key "=<name>"
        t, f = helpers["=" + e.value]
        return t, f, True
    s = guard_set(e, imports, helpers)
    if s is None:
        return ALL_EXPORTERS, ALL_EXPORTERS, False
    return s, ALL_EXPORTERS - s, True


def guard_sides(test: cst.BaseExpression, imports: ImportMap,
                helpers: Optional[dict] = None) -> Optional[tuple[frozenset, frozenset]]:
    """For a test holding export guards (or `self.training`): (exporters under which the body
    can run, exporters under which the else side can run); None for a test without guards.
    `if not torch.jit.is_tracing() and n == m:` -> body: torch.export and onnx-dynamo only."""
    t, f, g = _sides(test, imports, helpers)
    return (t, f) if g else None


def has_plain_part(test: cst.BaseExpression, imports: ImportMap, helpers=None) -> bool:
    """Whether a test holds something besides export guards and `self.training`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return has_plain_part(test.expression, imports, helpers)
    if isinstance(test, cst.BooleanOperation):
        return has_plain_part(test.left, imports, helpers) or has_plain_part(test.right, imports, helpers)
    if isinstance(test, cst.Attribute) and test.attr.value == "training":
        return False
    if helpers and isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value in helpers:
        return False
    if helpers and isinstance(test, cst.Name) and "=" + test.value in helpers:
        return False
    return guard_set(test, imports, helpers) is None


def guard_value(e: cst.BaseExpression, imports: ImportMap,
                helpers: Optional[dict] = None) -> Optional[frozenset]:
    """The exporters under which an expression made only of export guards is True
    (`torch.jit.is_tracing() or torch.jit.is_scripting()` -> onnx-legacy), or None when it is
    no guard expression."""
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
        v = guard_value(e.expression, imports, helpers)
        return None if v is None else ALL_EXPORTERS - v
    if isinstance(e, cst.BooleanOperation):
        a = guard_value(e.left, imports, helpers)
        b = guard_value(e.right, imports, helpers)
        if isinstance(e.operator, cst.Or):
            if a is None or b is None:
                # `is_tracing() or isinstance(x, Proxy)`: True wherever the guard is
                return (a or b) if (a or b) == ALL_EXPORTERS else None
            return a | b
        if a is None or b is None:
            return frozenset() if (a is not None and not a) or (b is not None and not b) else None
        return a & b
    return guard_set(e, imports, helpers)


def guard_helpers(functions: dict[str, cst.FunctionDef], imports: ImportMap) -> dict[str, tuple[frozenset, frozenset]]:
    """Module functions whose only statement returns an expression of export guards
    (`def is_tracing(): return torch.jit.is_tracing() or is_scripting()`,
    `def is_proxy(x): return torch.jit.is_tracing() or isinstance(x, Proxy)`), with the
    exporters under which they can return True and those under which they can return False
    (`is_proxy`: True under every exporter, False under all but onnx-legacy)."""
    out: dict[str, tuple[frozenset, frozenset]] = {}
    for name, fn in functions.items():
        stmts = [st for st in body_statements(fn.body)
                 if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1
                         and isinstance(st.body[0], cst.Expr) and isinstance(st.body[0].value, cst.SimpleString))]
        if len(stmts) != 1 or not isinstance(stmts[0], cst.SimpleStatementLine) or len(stmts[0].body) != 1:
            continue
        ret = stmts[0].body[0]
        if isinstance(ret, cst.Return) and ret.value is not None:
            t, f, g = _sides(ret.value, imports, out)
            if (g and (t != ALL_EXPORTERS or f != ALL_EXPORTERS) and _python_predicates(ret.value, imports, out)
                    and not (isinstance(ret.value, cst.Attribute) and ret.value.attr.value == "training")):
                out[name] = (t, f)
    return out


def _python_predicates(e: cst.BaseExpression, imports: ImportMap, helpers) -> bool:
    """Whether the parts of a guard expression besides the guards are Python-level predicates
    (`isinstance(x, Proxy)`, `flag`, `x is None`): never a tensor value."""
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
        return _python_predicates(e.expression, imports, helpers)
    if isinstance(e, cst.BooleanOperation):
        return _python_predicates(e.left, imports, helpers) and _python_predicates(e.right, imports, helpers)
    if not has_plain_part(e, imports, helpers) or isinstance(e, (cst.Name, cst.Attribute)):
        return True
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value in ("isinstance", "hasattr", "callable"):
        return True
    return isinstance(e, cst.Comparison) and all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in e.comparisons)


def guard_polarity(test: cst.BaseExpression, imports: ImportMap,
                   helpers: Optional[dict] = None) -> Optional[str]:
    """'body-not-exported' when the if-body runs under no exporter, 'else-not-exported' for the
    else side, None otherwise (no guard, or a side that runs under some exporters)."""
    sides = guard_sides(test, imports, helpers)
    if sides is None:
        return None
    if not sides[0]:
        return "body-not-exported"
    if not sides[1]:
        return "else-not-exported"
    return None


def first_param(fn: cst.FunctionDef) -> Optional[str]:
    ps = list(fn.params.posonly_params) + list(fn.params.params)
    return ps[0].name.value if ps else None


def iter_names_in(e: cst.BaseExpression) -> Iterator[str]:
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
    return set(iter_names_in(e))


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
    is_node = _IS_NODE
    for name in names:
        v = getattr(n, name)
        tv = type(v)
        yes = is_node.get(tv)
        if yes is None:
            yes = is_node[tv] = isinstance(v, cst.CSTNode)
        if yes:
            out.append(v)
        elif isinstance(v, (tuple, list)):
            for x in v:
                tx = type(x)
                yes = is_node.get(tx)
                if yes is None:
                    yes = is_node[tx] = isinstance(x, cst.CSTNode)
                if yes:
                    out.append(x)
    return out


#: type -> is it a CSTNode: ``isinstance`` against the abstract CSTNode goes through the ABC
#: machinery on every call (a third of a tree walk's time); a node's type decides it
_IS_NODE: dict[type, bool] = {}


def iter_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Pre-order over a subtree, whitespace and punctuation left out. (``child_nodes`` inlined
    for the types it has seen: the export-path functions of a file are walked whole, ~1k
    nodes each; a third less time than a call per node)"""
    stack = [node]
    pop, extend = stack.pop, stack.extend
    fields_of, is_node = _CHILD_FIELDS, _IS_NODE
    while stack:
        n = pop()
        yield n
        names = fields_of.get(type(n))
        if names is None:
            kids = child_nodes(n)
        else:
            kids = []
            for name in names:
                v = getattr(n, name)
                tv = type(v)
                yes = is_node.get(tv)
                if yes is None:
                    yes = is_node[tv] = isinstance(v, cst.CSTNode)
                if yes:
                    kids.append(v)
                elif isinstance(v, (tuple, list)):
                    for x in v:
                        tx = type(x)
                        yes = is_node.get(tx)
                        if yes is None:
                            yes = is_node[tx] = isinstance(x, cst.CSTNode)
                        if yes:
                            kids.append(x)
        if kids:
            kids.reverse()
            extend(kids)


#: the fields of a statement (or block) that hold statements or blocks, in field order
_STMT_FIELDS = ("body", "handlers", "cases", "orelse", "finalbody")
_SIMPLE_LINES = (cst.SimpleStatementLine, cst.SimpleStatementSuite)


def iter_statements(node: cst.CSTNode, into_defs: bool = True) -> Iterator[cst.CSTNode]:
    """The statements (compound ones, the small statements of simple lines) and blocks of a
    subtree in ``iter_nodes``' order, without walking an expression: a statement only occurs
    in a block, so the statements ``iter_nodes`` gives are exactly these. ``into_defs``
    False: nested defs and classes are neither given nor walked (the root always is)."""
    stack = [node]
    root = True
    while stack:
        n = stack.pop()
        t = type(n)  # (exact types: libcst's concrete nodes have no subclasses, and an
        # isinstance against them goes through the ABC machinery: measured, a tenth of a walk)
        if not root and not into_defs and (t is cst.FunctionDef or t is cst.ClassDef):
            continue
        root = False
        yield n
        if t in _SIMPLE_LINES:
            stack.extend(reversed(n.body))
            continue
        kids: list = []
        for name in _STMT_FIELDS:
            v = getattr(n, name, None)
            if v is None:
                continue
            if isinstance(v, (list, tuple)):
                kids.extend(v)
            elif isinstance(v, cst.CSTNode):
                kids.append(v)
        stack.extend(reversed(kids))


#: Python types an ``isinstance`` test can narrow a name to (never a tensor)
_PY_TYPES = frozenset({
    "dict", "list", "tuple", "str", "bytes", "int", "float", "bool", "complex", "set", "frozenset",
    "typing.Mapping", "typing.Sequence", "typing.Dict", "typing.List", "typing.Tuple",
    "collections.abc.Mapping", "collections.abc.Sequence", "collections.abc.Iterable",
    "collections.OrderedDict", "numbers.Number", "numbers.Real", "numbers.Integral",
})
TENSOR_TYPES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"})


def not_tensor_names(test: cst.BaseExpression, imports: Any) -> tuple[str, ...]:
    """Names a branch's test proves are no tensor in its body: ``isinstance(x, dict)`` (any
    Python container or scalar type, or a tuple of them), ``not isinstance(x, torch.Tensor)``,
    and either of them and-ed with other tests."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return not_tensor_names(test.left, imports) + not_tensor_names(test.right, imports)
    negated = False
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negated, test = True, test.expression
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
            and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
        return ()
    t = test.args[1].value
    elts = [el.value for el in t.elements] if isinstance(t, cst.Tuple) else [t]
    names = []
    for el in elts:
        d = dotted(el)
        if d is None:
            return ()
        q = d if d in _PY_TYPES else (imports.resolve(el) or d)
        names.append(q)
    if negated:
        ok = bool(names) and all(n in TENSOR_TYPES for n in names)
    else:
        ok = bool(names) and all(n in _PY_TYPES for n in names)
    return (test.args[0].value.value,) if ok else ()


#: the nodes whose ``target`` binds names (``assigned_names``): concrete libcst classes, none of
#: which has a subclass, so a type test answers as ``isinstance`` (which, against libcst's
#: ABC-derived classes, runs ``ABCMeta.__instancecheck__`` for every node that is not one)
_TARGET_TYPES = frozenset({cst.AssignTarget, cst.For, cst.CompFor, cst.NamedExpr, cst.AugAssign, cst.AnnAssign})


def assigned_names(block: cst.CSTNode) -> set[str]:
    """Names bound anywhere in a block (assignment and loop targets, ``:=``, ``with ... as``)."""
    out: set[str] = set()
    targets, with_item, name_type = _TARGET_TYPES, cst.WithItem, cst.Name
    for n in iter_nodes(block):
        tn = type(n)
        if tn in targets:
            t = n.target
        elif tn is with_item and n.asname is not None:
            t = n.asname.name
        else:
            continue
        for x in iter_nodes(t):
            if type(x) is name_type:
                out.add(x.value)
    return out


def assignments_in_scope(scope) -> list[tuple[str, cst.BaseExpression, cst.CSTNode]]:
    """(name, value, stmt) for simple `name = value` statements of a scope, recursing into blocks."""
    out: list[tuple[str, cst.BaseExpression, cst.CSTNode]] = []

    def walk(stmts):
        for st in stmts:
            if isinstance(st, cst.SimpleStatementLine):
                for s in st.body:
                    if isinstance(s, cst.Assign):
                        for t in s.targets:
                            if isinstance(t.target, cst.Name):
                                out.append((t.target.value, s.value, s))
                    elif isinstance(s, cst.AnnAssign) and isinstance(s.target, cst.Name) and s.value is not None:
                        out.append((s.target.value, s.value, s))
            elif isinstance(st, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
                walk(body_statements(st.body))
                orelse = getattr(st, "orelse", None)
                while isinstance(orelse, cst.If):
                    walk(body_statements(orelse.body))
                    orelse = orelse.orelse
                if orelse is not None:
                    walk(body_statements(orelse.body))
                for h in getattr(st, "handlers", ()):
                    walk(body_statements(h.body))

    body = scope.body if isinstance(scope, cst.Module) else scope.body
    walk(body_statements(scope) if isinstance(scope, cst.Module) else body_statements(body))
    return out
