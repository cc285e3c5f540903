"""Rewrites of value-dependent control flow into graph-friendly code (libcst, no torch).

Called by the EXL101 / EXL102 rules. Each function returns a :class:`Rewrite`: the
:class:`~exportlint.findings.Fix` (replacement text of a node, or of a run of statements),
the node(s) it replaces, and a note for the message when no rewrite is offered (why).

Families (``Fix.kind``):

- ``guard``: ``if <guard>: x = op(x)`` where ``op`` is the identity whenever the guard is
  false (clamping above a bound the guard tests, masking with the mask the guard tests for
  ``any()``, ``nan_to_num`` under a not-all-finite guard) -> ``x = op(x)``. Provably the same
  values: safe; except ``x.max() > M`` / ``x.min() < m`` guards, which are false when ``x``
  holds a NaN while other values pass the bound (measured): unsafe.
- ``where``: both sides assign the same names (or one side keeps the old value) with pure
  tensor expressions -> one ``torch.where`` per name; conditional expressions and
  ``if c: return a`` / ``return b`` likewise. Both sides are now evaluated: unsafe unless
  ``--confirm`` verified it.
- ``cond``: sides whose shapes the linter cannot match up (submodule calls, reshapes) ->
  ``torch.cond(pred, true_fn, false_fn, operands)`` with closure-free functions, only when
  no target exporter is onnx-legacy (measured: torch.cond passes export-strict,
  export-nonstrict and onnx-dynamo, which emits an ONNX ``If``; onnx-legacy fails).
- ``item``: ``flag = t.item() > 0`` / ``s = t.item()`` whose only uses are branch tests or
  tensor arithmetic -> keep the tensor (``t > 0``); the branch is then rewritten by EXL101.

No rewrite (and the note says why) when a side has effects (attribute or container
mutation, in-place tensor updates, I/O, logging, random numbers) or control leaves the block
(``return``, ``break``, ``continue``, ``raise``) other than the two-return forms above.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Optional

import libcst as cst

from exportlint.findings import Fix, FixSafety
from exportlint.semantics.kinds import CONST, DATA, MASK, NONE, TENSORISH
from exportlint.semantics.model import body_statements, literal_value

WHERE_TITLE = "torch.where (evaluates both sides)"
COND_TITLE = "torch.cond (torch.export / onnx-dynamo only)"

#: calls whose result has the shape of the broadcast of their tensor arguments
ELEMENTWISE = frozenset(
    "abs neg exp exp2 expm1 log log2 log10 log1p sqrt rsqrt sin cos tan tanh sinh cosh asin acos atan sigmoid "
    "relu relu6 gelu silu mish elu selu leaky_relu hardtanh hardsigmoid hardswish softplus softsign logsigmoid "
    "clamp clip clamp_min clamp_max nan_to_num sign floor ceil round trunc frac reciprocal square pow "
    "masked_fill where add sub mul div true_divide floor_divide remainder fmod maximum minimum "
    "float double half bfloat16 int long bool to type_as detach clone contiguous softmax log_softmax "
    "normalize dropout erf erfc isnan isinf isfinite logical_not logical_and logical_or eq ne lt le gt ge "
    "zeros_like ones_like full_like empty_like".split()
)

#: calls that draw random numbers
RNG = frozenset("rand randn randint randperm rand_like randn_like randint_like bernoulli multinomial normal poisson "
                "dropout dropout1d dropout2d dropout3d alpha_dropout feature_alpha_dropout uniform_ normal_ "
                "exponential_ geometric_ cauchy_ log_normal_ random_".split())
#: container mutation methods
MUTATORS = frozenset("append extend insert pop popitem remove clear update setdefault add discard sort reverse".split())
IO_CALLS = frozenset("print input open breakpoint".split())
LOG_RECEIVERS = frozenset("log logger logging LOGGER LOG _logger _log warnings".split())

_DUNDER = re.compile(r"^__\w+__$")
_DTYPES = frozenset("float16 half bfloat16 float32 float float64 double int8 uint8 int16 short int32 int int64 long "
                    "bool complex64 complex128 float8_e4m3fn float8_e5m2".split())


@dataclass
class Rewrite:
    fix: Optional[Fix] = None
    #: the node the fix replaces, or (first, last) statements of a block
    node: Any = None
    #: " No automatic rewrite: ..." appended to the finding's message (empty when there is a fix)
    note: str = ""
    extra: dict = field(default_factory=dict)


def _none(why: str) -> Rewrite:
    return Rewrite(note=f" No automatic rewrite: {why}.")


# ---------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------


def torch_alias(ctx) -> Optional[str]:
    for local, q in ctx.model.imports.names.items():
        if q == "torch":
            return local
    return None


def _code(ctx, node) -> str:
    return ctx.module.code_for_node(node)


def _expr(ctx, node) -> str:
    """Source of an expression, without its own outer parentheses' whitespace surprises."""
    return _code(ctx, node).strip()


def _paren(s: str) -> str:
    try:
        e = cst.parse_expression(s)
    except Exception:  # noqa: BLE001
        return f"({s})"
    if isinstance(e, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)) or e.lpar:
        return s
    return f"({s})"


def _loads(node) -> set[str]:
    """Names read anywhere inside node (a rough set: assignment targets are excluded)."""
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            out.add(n.value)

        def visit_AssignTarget(self, n: cst.AssignTarget) -> Optional[bool]:
            if isinstance(n.target, cst.Name):
                return False
            return True

        def visit_Attribute(self, n: cst.Attribute) -> Optional[bool]:
            n.value.visit(self)
            return False

        def visit_Arg(self, n: cst.Arg) -> Optional[bool]:
            n.value.visit(self)
            return False

    node.visit(V())
    return out


def _is_number(e) -> bool:
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, (cst.Minus, cst.Plus)):
        e = e.expression
    return isinstance(e, (cst.Integer, cst.Float)) and not e.lpar


def _call_name(call: cst.Call) -> Optional[str]:
    f = call.func
    if isinstance(f, cst.Name):
        return f.value
    if isinstance(f, cst.Attribute):
        return f.attr.value
    return None


# ---------------------------------------------------------------------------------------
# effects and control leaving the block
# ---------------------------------------------------------------------------------------


def effect_of(ctx, stmts) -> Optional[str]:
    """Why these statements cannot be evaluated unconditionally (None: they can)."""
    found: list[str] = []

    class V(cst.CSTVisitor):
        def visit_Return(self, n) -> None:
            found.append("control leaves the block (`return`)")

        def visit_Break(self, n) -> None:
            found.append("control leaves the block (`break`)")

        def visit_Continue(self, n) -> None:
            found.append("control leaves the block (`continue`)")

        def visit_Raise(self, n) -> None:
            found.append("a side raises")

        def visit_Global(self, n) -> None:
            found.append("a side declares `global`")

        def visit_Nonlocal(self, n) -> None:
            found.append("a side declares `nonlocal`")

        def visit_Del(self, n) -> None:
            found.append("a side deletes names (`del`)")

        def visit_Yield(self, n) -> None:
            found.append("a side yields")

        def visit_Await(self, n) -> None:
            found.append("a side awaits")

        def visit_FunctionDef(self, n) -> Optional[bool]:
            return False  # a nested def's body runs later

        def visit_Lambda(self, n) -> Optional[bool]:
            return False

        def _target(self, t) -> None:
            if isinstance(t, cst.Attribute):
                found.append(f"a side mutates an attribute (`{_expr(ctx, t)}`)")
            elif isinstance(t, cst.Subscript):
                found.append(f"a side writes into a container or tensor (`{_expr(ctx, t)}`)")
            elif isinstance(t, (cst.Tuple, cst.List)):
                for el in t.elements:
                    self._target(el.value)

        def visit_AssignTarget(self, n) -> None:
            self._target(n.target)

        def visit_AugAssign(self, n) -> None:
            self._target(n.target)

        def visit_AnnAssign(self, n) -> None:
            self._target(n.target)

        def visit_Call(self, n: cst.Call) -> None:
            name = _call_name(n)
            q = ctx.model.imports.resolve(n.func) or ""
            if isinstance(n.func, cst.Name) and name in IO_CALLS:
                found.append(f"a side does I/O (`{name}(...)`)")
            elif q.startswith(("logging.", "warnings.")) or (
                isinstance(n.func, cst.Attribute) and isinstance(n.func.value, cst.Name)
                and n.func.value.value in LOG_RECEIVERS
            ):
                found.append(f"a side logs (`{_expr(ctx, n.func)}(...)`)")
            elif name in RNG:
                found.append(f"a side draws random numbers (`{name}`)")
            elif isinstance(n.func, cst.Attribute) and name in MUTATORS:
                found.append(f"a side mutates a container (`.{name}(...)`)")
            elif isinstance(n.func, cst.Attribute) and name and name.endswith("_") and not _DUNDER.match(name) \
                    and not name.startswith("_"):
                found.append(f"a side updates a tensor in place (`.{name}(...)`)")

    for s in stmts:
        s.visit(V())
        if found:
            return found[0]
    return None


# ---------------------------------------------------------------------------------------
# the condition as a tensor
# ---------------------------------------------------------------------------------------


def tensor_cond(ctx, fn, test) -> tuple[Optional[str], str]:
    """(source of a boolean tensor equal to the test's truth value, why-not)."""
    k = fn.kind(test)
    if isinstance(test, cst.BooleanOperation):
        a, why = tensor_cond(ctx, fn, test.left)
        if a is None:
            return None, why
        b, why = tensor_cond(ctx, fn, test.right)
        if b is None:
            return None, why
        op = "&" if isinstance(test.operator, cst.And) else "|"
        return f"{_paren(a)} {op} {_paren(b)}", ""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        a, why = tensor_cond(ctx, fn, test.expression)
        return (f"~{_paren(a)}" if a is not None else None), why
    if isinstance(test, cst.Comparison):
        if len(test.comparisons) != 1:
            return None, "the condition is a chained comparison"
        ct = test.comparisons[0]
        if not isinstance(ct.operator, (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual,
                                        cst.Equal, cst.NotEqual)):
            return None, "the condition is not a tensor comparison"
        left, lt = _strip_conversion(ctx, fn, test.left)
        right, rt = _strip_conversion(ctx, fn, ct.comparator)
        if not (lt or rt):
            return None, _python_value_why(fn, test)
        op = _code(ctx, ct.operator).strip()
        return f"{left} {op} {right}", ""
    if isinstance(test, cst.Call):
        name = _call_name(test)
        if isinstance(test.func, cst.Name) and name == "bool" and len(test.args) == 1:
            return tensor_cond(ctx, fn, test.args[0].value)
        inner, ok = _strip_conversion(ctx, fn, test)
        if ok and inner != _expr(ctx, test):
            return f"{_paren(inner)} != 0", ""
        # t.any() / t.all() / torch.any(t): a boolean tensor whatever the model knows of the call
        f = test.func
        if name in ("any", "all") and isinstance(f, cst.Attribute):
            q = ctx.model.imports.resolve(f)
            operand = test.args[0].value if q in ("torch.any", "torch.all") and test.args else (
                f.value if q is None else None)
            if operand is not None and (fn.kind(operand) in TENSORISH or _tensor_call(ctx, operand)):
                return _expr(ctx, test), ""
    if k in TENSORISH and isinstance(test, cst.Name) and _unannotated_param(fn, test.value):
        # `if flag:` on an argument the linter only assumes is a tensor (a Python bool in most code)
        return None, f"cannot tell that `{test.value}` is a tensor (an argument without annotation)"
    if k in TENSORISH:
        s = _expr(ctx, test)
        return (s, "") if k == MASK else (f"{_paren(s)} != 0", "")
    return None, _python_value_why(fn, test)


def _unannotated_param(fn, name: str) -> bool:
    p = fn.node.params
    for prm in list(p.posonly_params) + list(p.params) + list(p.kwonly_params):
        if prm.name.value == name:
            return prm.annotation is None
    return False


def _tensor_call(ctx, e) -> bool:
    """torch.isnan(t) / t.isinf() / (a == b) on tensors: a tensor even when the model has no kind for it."""
    if isinstance(e, cst.Call):
        q = ctx.model.imports.resolve(e.func) or ""
        return q.startswith("torch.") and q.rsplit(".", 1)[-1] in ELEMENTWISE
    return False


def _python_value_why(fn, test) -> str:
    from exportlint.semantics.model import names_in

    names = sorted(n for n in names_in(test) if fn.env.get(n) == DATA)
    if names:
        return (f"the condition reads `{names[0]}`, a Python number taken out of a tensor: keep it a tensor "
                "first (drop `.item()` / `bool()`), then the branch can become `torch.where`")
    return "the condition is not a tensor expression the linter can rewrite"


def _strip_conversion(ctx, fn, e) -> tuple[str, bool]:
    """(source, is_tensor): `t.item()` -> `t`, `float(t)` -> `t`; tensors as they are."""
    if isinstance(e, cst.Call) and not e.args and isinstance(e.func, cst.Attribute) and e.func.attr.value == "item":
        recv = e.func.value
        if fn.kind(recv) in TENSORISH:
            return _expr(ctx, recv), True
    if (isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "float" and len(e.args) == 1
            and fn.kind(e.args[0].value) in TENSORISH):
        return _expr(ctx, e.args[0].value), True
    s = _expr(ctx, e)
    return s, fn.kind(e) in TENSORISH


# ---------------------------------------------------------------------------------------
# where the statement sits: indentation, the block around it, what was defined before
# ---------------------------------------------------------------------------------------


@dataclass
class Place:
    indent: str
    block: list  # the statements of the enclosing block
    index: int  # position of the statement in it
    before: list  # statements that ran before it (enclosing blocks' earlier statements, in order)


def locate(ctx, fn, target) -> Optional[Place]:
    anchor_node, anchor_indent = fn.anchor
    if anchor_indent is None:
        return None
    default = ctx.module.default_indent

    def walk(owner, indent: str, before: list) -> Optional[Place]:
        body = owner.body
        ind = indent + (default if getattr(body, "indent", None) is None else body.indent)
        stmts = list(body_statements(owner))
        for i, st in enumerate(stmts):
            if st is target:
                return Place(ind, stmts, i, before + stmts[:i])
            for sub in _sub_blocks(st):
                got = walk(sub, ind, before + stmts[:i])
                if got is not None:
                    return got
        return None

    if not isinstance(anchor_node, cst.FunctionDef):
        return None
    return walk(anchor_node, anchor_indent, [])


def _sub_blocks(st) -> list:
    t = type(st)
    if t is cst.If:
        out = [st]
        o = st.orelse
        while o is not None:
            if isinstance(o, cst.If):
                out.append(o)
                o = o.orelse
            else:
                out.append(o)
                o = None
        return out
    if t in (cst.For, cst.While):
        return [st] + ([st.orelse] if st.orelse is not None else [])
    if t is cst.With or t is cst.FunctionDef:
        return [st]
    if t is cst.Try:
        return [st] + list(st.handlers) + [x for x in (st.orelse, st.finalbody) if x is not None]
    return []


def _assigned_names(stmts) -> set[str]:
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n) -> None:
            _targets(n.target, out)

        def visit_AugAssign(self, n) -> None:
            _targets(n.target, out)

        def visit_AnnAssign(self, n) -> None:
            if n.value is not None:
                _targets(n.target, out)

        def visit_For(self, n) -> None:
            _targets(n.target, out)

        def visit_WithItem(self, n) -> None:
            if n.asname is not None:
                _targets(n.asname.name, out)

        def visit_NamedExpr(self, n) -> None:
            _targets(n.target, out)

        def visit_FunctionDef(self, n) -> Optional[bool]:
            out.add(n.name.value)
            return False

    for s in stmts:
        s.visit(V())
    return out


def _targets(t, out: set) -> None:
    if isinstance(t, cst.Name):
        out.add(t.value)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for el in t.elements:
            _targets(el.value, out)
    elif isinstance(t, cst.StarredElement):
        _targets(t.value, out)


def _params(fn) -> set[str]:
    p = fn.node.params
    names = [x.name.value for x in list(p.posonly_params) + list(p.params) + list(p.kwonly_params)]
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            names.append(star.name.value)
    return set(names)


def prior_kind(fn, place: Place, name: str) -> Optional[str]:
    """Kind of ``name`` just before the statement: its last straight-line assignment, or the
    parameter's kind. None when unknown."""
    last = None
    for st in place.before:
        if isinstance(st, cst.SimpleStatementLine):
            for small in st.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                        isinstance(small.targets[0].target, cst.Name) and small.targets[0].target.value == name:
                    last = ("value", small.value)
                elif isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and name in _assigned_names([small]):
                    last = ("other", None)
        elif name in _assigned_names([st]):
            last = ("other", None)
    if last is None:
        if name in _params(fn):
            return fn.env.get(name)
        return None
    if last[0] == "value":
        return fn.kind(last[1])
    k = fn.env.get(name)
    return k if k in TENSORISH else None


def defined_before(fn, place: Place, name: str) -> bool:
    return name in _params(fn) or name in _assigned_names(place.before)


# ---------------------------------------------------------------------------------------
# shapes: is an expression elementwise in its tensor operands?
# ---------------------------------------------------------------------------------------


def shape_sources(ctx, fn, e) -> Optional[frozenset]:
    """Source texts of the tensors whose broadcast shape ``e`` has, when ``e`` is elementwise
    in them (frozenset() for Python numbers); None when unknown (reshapes, reductions,
    submodule calls, matmul)."""
    if _is_number(e):
        return frozenset()
    if isinstance(e, (cst.Name, cst.Attribute)):
        k = fn.kind(e)
        if k in TENSORISH:
            return frozenset({_expr(ctx, e)})
        return frozenset() if k == CONST else None
    if isinstance(e, cst.UnaryOperation):
        return shape_sources(ctx, fn, e.expression)
    if isinstance(e, cst.BinaryOperation):
        if isinstance(e.operator, cst.MatrixMultiply):
            return None
        a, b = shape_sources(ctx, fn, e.left), shape_sources(ctx, fn, e.right)
        return None if a is None or b is None else a | b
    if isinstance(e, cst.Comparison):
        parts = [shape_sources(ctx, fn, e.left)] + [shape_sources(ctx, fn, c.comparator) for c in e.comparisons]
        if any(p is None for p in parts):
            return None
        return frozenset().union(*parts)
    if isinstance(e, cst.Call):
        name = _call_name(e)
        if name not in ELEMENTWISE:
            return None
        out: frozenset = frozenset()
        if name == "masked_fill" and isinstance(e.func, cst.Attribute) and ctx.model.imports.resolve(e.func) is None:
            return shape_sources(ctx, fn, e.func.value)  # the result has the receiver's shape
        if isinstance(e.func, cst.Attribute):
            q = ctx.model.imports.resolve(e.func)
            if q is None:  # a method: the receiver is an operand
                r = shape_sources(ctx, fn, e.func.value)
                if r is None:
                    return None
                out |= r
        for a in e.args:
            if a.keyword is not None and a.keyword.value in ("dim", "dtype", "device", "memory_format", "inplace",
                                                                "approximate", "negative_slope"):
                continue
            if fn.kind(a.value) in TENSORISH or isinstance(a.value, (cst.BinaryOperation, cst.Call)):
                s = shape_sources(ctx, fn, a.value)
                if s is None:
                    return None
                out |= s
        return out
    return None


# ---------------------------------------------------------------------------------------
# arms of an if / elif / else chain
# ---------------------------------------------------------------------------------------


@dataclass
class Arm:
    test: Optional[cst.BaseExpression]  # None for else
    stmts: list
    #: name -> value expression (simple assignments only), in order
    assigns: dict = field(default_factory=dict)
    simple: bool = True
    returns: Optional[cst.BaseExpression] = None


def _arms(st: cst.If) -> list[Arm]:
    arms = []
    cur: Any = st
    while cur is not None:
        if isinstance(cur, cst.If):
            arms.append(Arm(cur.test, list(body_statements(cur.body))))
            cur = cur.orelse
        else:
            arms.append(Arm(None, list(body_statements(cur.body))))
            cur = None
    for arm in arms:
        _analyse_arm(arm)
    return arms


def _analyse_arm(arm: Arm) -> None:
    for s in arm.stmts:
        if not isinstance(s, cst.SimpleStatementLine):
            arm.simple = False
            return
        for small in s.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                name = small.targets[0].target.value
                if name in arm.assigns:
                    arm.simple = False  # assigned twice: the values depend on each other
                    return
                arm.assigns[name] = small.value
            elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
                name = small.target.value
                if name in arm.assigns:
                    arm.simple = False
                    return
                arm.assigns[name] = ("aug", small)
            elif isinstance(small, cst.Return) and small is s.body[-1] and s is arm.stmts[-1]:
                arm.returns = small.value
            elif isinstance(small, cst.Pass):
                continue
            else:
                arm.simple = False
                return


def _value_src(ctx, v) -> str:
    if isinstance(v, tuple) and v[0] == "aug":
        aug = v[1]
        op = _code(ctx, aug.operator).strip()[:-1]  # "+=" -> "+"
        return f"{aug.target.value} {op} {_paren(_expr(ctx, aug.value))}"
    return _expr(ctx, v)


def _value_node(v):
    return v[1] if isinstance(v, tuple) else v


def _comments(ctx, nodes) -> list[str]:
    """Comments inside the replaced statements (their leading comment lines included: the
    range starts there, and it ends after the last line's comment), to keep them above the
    rewrite."""
    out: list[str] = []

    class V(cst.CSTVisitor):
        def visit_Comment(self, n: cst.Comment) -> None:
            out.append(n.value)

    for n in nodes:
        n.visit(V())
    return out


def _render(lines: list[str], comments: list[str], indent: str) -> str:
    """Statements for a range that starts at the statement's column: the first line carries
    no indentation, the others do (blank lines stay empty)."""
    all_lines = list(comments) + lines
    return "\n".join((ln if i == 0 else (indent + ln if ln.strip() else "")) for i, ln in enumerate(all_lines))


# ---------------------------------------------------------------------------------------
# EXL101: a branch on tensor data
# ---------------------------------------------------------------------------------------


def cond_allowed(ctx) -> bool:
    targets = tuple(getattr(ctx.config, "target_exporters", None) or ())
    return bool(targets) and "onnx-legacy" not in targets


def branch_rewrite(ctx, fn, br) -> Rewrite:
    """The rewrite of a data-dependent branch (never raises: an unexpected shape of code means
    no rewrite)."""
    try:
        return _branch_rewrite(ctx, fn, br)
    except Exception:  # noqa: BLE001 - a rewrite is a bonus; the finding stands without it
        return Rewrite()


def _branch_rewrite(ctx, fn, br) -> Rewrite:
    if br.construct in ("while",):
        return _none("a loop until a tensor condition holds has no branch-free form; use a fixed number of "
                     "iterations")
    if br.construct in ("assert", "comprehension"):
        return Rewrite()
    tname = torch_alias(ctx)
    if tname is None:
        return _none("the file does not `import torch`")
    if br.construct == "ifexp":
        return _ifexp(ctx, fn, br, tname)
    if br.construct == "elif":
        return _none("an `elif` is not rewritten alone: a rewrite covers a whole `if` chain whose tests are all "
                     "on tensors (reported on its first `if`)")
    st = br.stmt
    if not isinstance(st, cst.If):
        return Rewrite()
    place = locate(ctx, fn, st)
    if place is None:
        return Rewrite()
    arms = _arms(st)
    py_parts, tensor_test = _split_python_conjuncts(ctx, fn, st.test)
    if py_parts:
        # `if <python> and <tensor>:` -> `if <python>:` around the rewrite of `if <tensor>:`
        if len(arms) != 1 or tensor_test is None:
            return _none("the test mixes a Python condition with a tensor one and the `if` has an `else`")
        arms[0].test = tensor_test
        rw = _rewrite_if(ctx, fn, st, arms, place, tname)
        if rw.fix is not None:
            ind = ctx.module.default_indent
            body = rw.fix.replacement.replace("\n" + place.indent, "\n" + place.indent + ind)
            rep = f"if {' and '.join(py_parts)}:\n{place.indent}{ind}{body}"
            rw.fix = dataclasses.replace(rw.fix, replacement=rep)
        return rw
    return _rewrite_if(ctx, fn, st, arms, place, tname)


def _split_python_conjuncts(ctx, fn, test) -> tuple[list[str], Any]:
    """`a and b and c` where some conjuncts are Python values fixed at export time (dtype checks,
    `x is not None`, config flags): (their sources, the one tensor conjunct) -- ([], None)
    when there is no Python conjunct or more than one tensor conjunct."""
    parts: list = []

    def ands(e):
        if isinstance(e, cst.BooleanOperation) and isinstance(e.operator, cst.And) and not e.lpar:
            ands(e.left)
            ands(e.right)
        else:
            parts.append(e)
    ands(test)
    if len(parts) < 2:
        return [], None
    py, tensor = [], []
    for p in parts:
        (tensor if _tensor_dependent(fn, p) else py).append(p)
    if not py or len(tensor) != 1:
        return [], None
    if tensor[0] is not parts[-1]:
        return [], None  # short-circuit order: a Python part after the tensor one may depend on it
    return [_expr(ctx, p) for p in py], tensor[0]


def _tensor_dependent(fn, e) -> bool:
    """False for a conjunct whose value is fixed at export time (a CONST kind: dtype / config
    checks; `x is None` tests)."""
    if fn.kind(e) == CONST:
        return False
    if isinstance(e, cst.Comparison) and all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in e.comparisons):
        return False
    if isinstance(e, cst.Comparison):
        ops = [e.left] + [c.comparator for c in e.comparisons]

        def fixed(o) -> bool:  # x.dtype, a literal, torch.float16, a config value
            if fn.kind(o) in (CONST, NONE) or _is_number(o) or isinstance(o, cst.SimpleString):
                return True
            if isinstance(o, cst.Attribute) and o.attr.value in ("dtype", "device", "ndim", "is_cuda", "requires_grad"):
                return True  # fixed at export time whatever the tensor holds
            q = fn.imports.resolve(o) if isinstance(o, (cst.Attribute, cst.Name)) else None
            return q is not None and q.startswith("torch.") and q.rsplit(".", 1)[-1] in _DTYPES
        return not all(fixed(o) for o in ops)
    if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
        return _tensor_dependent(fn, e.expression)
    return True


def _rewrite_if(ctx, fn, st, arms, place, tname) -> Rewrite:
    g = _guard(ctx, fn, st, arms, place)
    if g is not None:
        return g
    # the `if` chain: every test must become a tensor condition
    conds = []
    for arm in arms:
        if arm.test is None:
            continue
        c, why = tensor_cond(ctx, fn, arm.test)
        if c is None:
            return _none(why)
        conds.append(c)
    # two returns: `if c: return a` [else: return b | followed by `return b`]
    rw = _returns(ctx, fn, st, arms, conds, place, tname)
    if rw is not None:
        return rw
    for arm in arms:
        why = effect_of(ctx, arm.stmts)
        if why is not None:
            return _none(why)
    where = None
    if all(a.simple and a.returns is None for a in arms):
        where = _where_assign(ctx, fn, st, arms, conds, place, tname)
        if where is not None and (where.fix is None or not (where.extra.get("shapes") and cond_allowed(ctx))):
            return where
    rw = _cond(ctx, fn, st, arms, conds, place, tname)
    if rw.fix is None and where is not None and where.fix is not None:
        return where  # torch.cond does not fit: the where rewrite, for --confirm to judge
    return rw


def _ifexp(ctx, fn, br, tname) -> Rewrite:
    e = br.stmt
    c, why = tensor_cond(ctx, fn, e.test)
    if c is None:
        return _none(why)
    ka, kb = fn.kind(e.body), fn.kind(e.orelse)
    if not (ka in TENSORISH or kb in TENSORISH) or not all(k in TENSORISH or _is_number(x) for k, x in
                                                              ((ka, e.body), (kb, e.orelse))):
        return _none("a side of the conditional expression is not a tensor")
    why = effect_of(ctx, [e.body, e.orelse])
    if why is not None:
        return _none(why)
    rep = f"{tname}.where({c}, {_expr(ctx, e.body)}, {_expr(ctx, e.orelse)})"
    return Rewrite(
        Fix(rep, FixSafety.UNSAFE, "select with torch.where: both sides are computed; their shapes must broadcast "
            "(verify with --confirm)", title=WHERE_TITLE, kind="where"),
        e,
    )


def _returns(ctx, fn, st, arms, conds, place, tname) -> Optional[Rewrite]:
    """`if c: return a` + `else: return b`, or + a following `return b` -> one `return torch.where(c, a, b)`."""
    if not any(a.returns is not None for a in arms):
        return None
    if len(arms) == 2 and arms[1].test is None and all(a.returns is not None and len(a.stmts) == 1 for a in arms):
        return _where_return(ctx, fn, st, arms[0].returns, arms[1].returns, conds[0], tname, place, None)
    if len(arms) == 1 and arms[0].returns is not None and len(arms[0].stmts) == 1:
        nxt = place.block[place.index + 1] if place.index + 1 < len(place.block) else None
        if isinstance(nxt, cst.SimpleStatementLine) and len(nxt.body) == 1 and isinstance(nxt.body[0], cst.Return) \
                and nxt.body[0].value is not None:
            return _where_return(ctx, fn, st, arms[0].returns, nxt.body[0].value, conds[0], tname, place, nxt)
    return _return_none(arms)


def _return_none(arms) -> Rewrite:
    return _none("control leaves the block (`return`) and the rest is not a single `return`; compute both "
                 "results and select with `torch.where`, or move the check out of the exported module")


def _where_return(ctx, fn, st, a, b, cond, tname, place, last) -> Rewrite:
    if a is None or b is None:
        return _return_none([])
    pairs: list[tuple[Any, Any]]
    tuple_out = isinstance(a, cst.Tuple) and isinstance(b, cst.Tuple)
    if tuple_out:
        if len(a.elements) != len(b.elements) or any(isinstance(el, cst.StarredElement) for el in
                                                     list(a.elements) + list(b.elements)):
            return _none("the two `return`s give tuples of different lengths")
        pairs = [(x.value, y.value) for x, y in zip(a.elements, b.elements)]
    else:
        pairs = [(a, b)]
    parts = []
    for x, y in pairs:
        kx, ky = fn.kind(x), fn.kind(y)
        if not (kx in TENSORISH or ky in TENSORISH) or not all(k in TENSORISH or _is_number(v)
                                                                for k, v in ((kx, x), (ky, y))):
            return _none("a returned value is not a tensor on both sides")
        sx, sy = _expr(ctx, x), _expr(ctx, y)
        parts.append(sx if sx == sy else f"{tname}.where({cond}, {sx}, {sy})")
    why = effect_of(ctx, [x for p in pairs for x in p])
    if why is not None:
        return _none(why)
    body = ", ".join(parts)
    rep = _render([f"return {body}"], _comments(ctx, _stmts_between(st, last)), place.indent)
    node = st if last is None else (st, last)
    return Rewrite(
        Fix(rep, FixSafety.UNSAFE, "return torch.where(cond, a, b): both results are computed; their shapes must "
            "broadcast (verify with --confirm)", title=WHERE_TITLE, kind="where"),
        node,
    )


def _stmts_between(st, last):
    return [st] if last is None else [st, last]


def _where_assign(ctx, fn, st, arms, conds, place, tname) -> Optional[Rewrite]:
    names: list[str] = []
    for arm in arms:
        for n in arm.assigns:
            if n not in names:
                names.append(n)
    if not names:
        return _none("the branch assigns nothing")
    # fresh Python temporaries of one side (`clamp_value = torch.finfo(h.dtype).max - 1000`): computed
    # unconditionally before the `where`s (pure, and not tensors)
    hoisted: list[str] = []
    for n in names:
        owners = [a for a in arms if n in a.assigns]
        v = owners[0].assigns[n]
        if len(owners) == 1 and not isinstance(v, tuple) and not defined_before(fn, place, n) and \
                fn.kind(v) not in TENSORISH and fn.kind(v) != DATA and effect_of(ctx, [v]) is None:
            hoisted.append(n)
    # a side's value may read its own earlier assignments only through hoisted temporaries
    for arm in arms:
        seen: set[str] = set()
        for n, v in arm.assigns.items():
            if (_loads(_value_node(v)) & seen) - set(hoisted):
                return None
            seen.add(n)
    hoist_lines = []
    for n in hoisted:
        owner = next(a for a in arms if n in a.assigns)
        hoist_lines.append(f"{n} = {_expr(ctx, owner.assigns[n])}")
    names = [n for n in names if n not in hoisted]
    if not names:
        return _none("the branch assigns no tensor")
    has_else = arms[-1].test is None
    shapes_unknown = False
    values: dict[str, list[str]] = {}
    reads: dict[str, set[str]] = {}
    for n in names:
        srcs = []
        shape_sets = []
        rd: set[str] = set()
        for arm in arms:
            v = arm.assigns.get(n)
            if v is None:
                if not defined_before(fn, place, n):
                    return _none(f"`{n}` is assigned on one side only and has no value before the `if`")
                k = prior_kind(fn, place, n)
                if k not in TENSORISH:
                    return _none(f"cannot tell that `{n}` holds a tensor before the `if`")
                srcs.append(n)
                shape_sets.append(frozenset({n}))
                rd.add(n)
                continue
            node = _value_node(v)
            aug_ok = isinstance(v, tuple) and (fn.kind(v[1].value) in TENSORISH or _is_number(v[1].value)
                                               or fn.kind(v[1].value) == CONST)
            if not (aug_ok or fn.kind(node) in TENSORISH or _is_number(node)):
                return _none(f"`{n}` is not a tensor on every side")
            if isinstance(v, tuple):  # x += e: x must be a tensor before
                if prior_kind(fn, place, n) not in TENSORISH:
                    return _none(f"cannot tell that `{n}` holds a tensor before the `if`")
                s = shape_sources(ctx, fn, v[1].value)
                shape_sets.append(None if s is None else s | {n})
                rd |= _loads(v[1].value) | {n}
            else:
                shape_sets.append(shape_sources(ctx, fn, node))
                rd |= _loads(node)
            srcs.append(_value_src(ctx, v))
        if not has_else:
            if not defined_before(fn, place, n):
                return _none(f"`{n}` is assigned under the `if` only and has no value before it")
            if prior_kind(fn, place, n) not in TENSORISH:
                return _none(f"cannot tell that `{n}` holds a tensor before the `if`")
            srcs.append(n)
            shape_sets.append(frozenset({n}))
            rd.add(n)
        nonempty = [s for s in shape_sets if s]
        if any(s is None for s in shape_sets) or not _same_shape_family(nonempty):
            shapes_unknown = True
        values[n] = srcs
        reads[n] = rd
    order = _order(names, reads)
    if order is None:
        return _none("the names assigned read each other's new values (a swap)")
    lines = list(hoist_lines)
    for n in order:
        srcs = values[n]
        expr = srcs[-1]
        for c, s in reversed(list(zip(conds, srcs[:-1]))):
            expr = expr if s == expr else f"{tname}.where({c}, {s}, {expr})"
        lines.append(f"{n} = {expr}")
    rep = _render(lines, _comments(ctx, [st]), place.indent)
    desc = ("both sides are computed and selected with torch.where"
            + ("; the linter cannot tell that their shapes match" if shapes_unknown else "")
            + " (verify with --confirm)")
    rw = Rewrite(Fix(rep, FixSafety.UNSAFE, desc, title=WHERE_TITLE, kind="where"), st)
    if shapes_unknown:
        rw.extra["shapes"] = True  # torch.cond is preferred where the targets allow it
    return rw


def _same_shape_family(sets: list) -> bool:
    """x vs x * 2 vs x.clamp(0): the same tensors on every side (or the fewest a subset of
    every other side's)."""
    if len(set(sets)) <= 1:
        return True
    smallest = min(sets, key=len)
    return all(smallest <= s for s in sets)


def _order(names: list[str], reads: dict[str, set[str]]) -> Optional[list[str]]:
    """Emit a name's `where` before any name it reads is overwritten."""
    remaining = list(names)
    out: list[str] = []
    while remaining:
        for n in remaining:
            # n may be emitted when no other remaining name m reads n's old value
            if not any(n in reads[m] for m in remaining if m != n):
                out.append(n)
                remaining.remove(n)
                break
        else:
            return None
    return out


def _cond(ctx, fn, st, arms, conds, place, tname) -> Rewrite:
    if not cond_allowed(ctx):
        return _none("the sides are not elementwise in the same tensors, so `torch.where` may change shapes, and "
                     "`torch.cond` fails with onnx-legacy (a target exporter here); restructure by hand, or target "
                     "torch.export / onnx-dynamo only to get a `torch.cond` rewrite")
    if len(arms) > 2 or len(conds) != 1:
        return _none("an `elif` chain with sides that are not elementwise has no single `torch.cond` form")
    if any(a.returns is not None for a in arms):
        return _none("control leaves the block (`return`)")
    true_stmts = arms[0].stmts
    false_stmts = arms[1].stmts if len(arms) == 2 else []
    assigned = _assigned_names(true_stmts) | _assigned_names(false_stmts)
    module_names = set(ctx.model.imports.names) | set(getattr(ctx.model, "module_consts", {}) or {})
    module_names |= {c.name for c in getattr(ctx.model, "classes", []) if hasattr(c, "name")}
    import builtins

    loads = _loads_stmts(true_stmts) | _loads_stmts(false_stmts)
    outputs = [n for n in _assigned_in_order(true_stmts + false_stmts) if n in assigned]
    operands: list[str] = []
    uses_self = False
    for n in sorted(loads | set(outputs)):
        if n in module_names or hasattr(builtins, n):
            continue
        if n == fn.self_name:
            uses_self = True
            continue
        if not defined_before(fn, place, n):
            if n in assigned:
                continue
            return _none(f"`{n}` is not defined before the `if`")
        if prior_kind(fn, place, n) not in TENSORISH:
            return _none(f"`torch.cond` operands must be tensors and `{n}` is not known to be one")
        operands.append(n)
    for n in outputs:
        for arm_stmts in (true_stmts, false_stmts):
            if n not in _assigned_names(arm_stmts) and not defined_before(fn, place, n):
                return _none(f"`{n}` is assigned on one side only and has no value before the `if`")
    if not outputs:
        return _none("the branch assigns nothing")
    base = f"_{fn.name.strip('_') or 'fn'}_{len(place.before)}"
    params = ", ".join(operands + ([f"{fn.self_name}={fn.self_name}"] if uses_self else []))
    ind = ctx.module.default_indent
    lines: list[str] = []
    for side, stmts in (("true", true_stmts), ("false", false_stmts)):
        lines.append(f"def {base}_{side}({params}):")
        body = _reindent(ctx, stmts, ind)
        lines.extend(body)
        rets = []
        mine = _assigned_names(stmts)
        for n in outputs:
            rets.append(n if n in mine and not _aliases_operand(stmts, n, operands) else f"{n}.clone()")
        lines.append(f"{ind}return {', '.join(rets)}" + ("," if len(rets) == 1 and False else ""))
    lhs = ", ".join(outputs)
    ops = "(" + ", ".join(operands) + ("," if len(operands) == 1 else "") + ")"
    lines.append(f"{lhs} = {tname}.cond({conds[0]}, {base}_true, {base}_false, {ops})")
    rep = _render(lines, [], place.indent)
    return Rewrite(
        Fix(rep, FixSafety.UNSAFE, "torch.cond keeps both branches in the graph (torch.export and onnx-dynamo; "
            "not onnx-legacy); both must return tensors of the same shape (verify with --confirm)",
            title=COND_TITLE, kind="cond"),
        st,
    )


def _loads_stmts(stmts) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        out |= _loads(s)
    return out


def _assigned_in_order(stmts) -> list[str]:
    out: list[str] = []
    for s in stmts:
        for n in sorted(_assigned_names([s])):
            if n not in out:
                out.append(n)
    return out


def _aliases_operand(stmts, n, operands) -> bool:
    """Whether the side's last assignment of n is a bare operand name (torch.cond rejects
    outputs that alias inputs: "Replace `return input` with `return input.clone()`")."""
    last = None
    for s in stmts:
        if isinstance(s, cst.SimpleStatementLine):
            for small in s.body:
                if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == n
                                                          for t in small.targets):
                    last = small.value
    return isinstance(last, cst.Name) and last.value in operands


def _reindent(ctx, stmts, ind: str) -> list[str]:
    """The statements' source, one level deep in a new function (relative indentation)."""
    mod = cst.Module(body=list(stmts), default_indent=ctx.module.default_indent,
                     default_newline="\n")
    code = mod.code
    out = []
    for line in code.splitlines():
        out.append(ind + line if line.strip() else "")
    while out and not out[-1]:
        out.pop()
    return out


# ---------------------------------------------------------------------------------------
# guards that only skip a no-op
# ---------------------------------------------------------------------------------------


def _norm(ctx, node) -> str:
    return re.sub(r"\s+", "", _expr(ctx, node))


def _guard(ctx, fn, st, arms, place) -> Optional[Rewrite]:
    """`if <guard>: x = op(x)` where op is the identity whenever the guard is false."""
    if len(arms) != 1 or len(arms[0].stmts) != 1:
        return None
    s = arms[0].stmts[0]
    if not isinstance(s, cst.SimpleStatementLine) or len(s.body) != 1:
        return None
    small = s.body[0]
    facts = _guard_facts(ctx, fn, arms[0].test)
    if not facts:
        return None
    ok = False
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        x = small.targets[0].target.value
        ok = _noop_when_false(ctx, fn, small.value, x, facts, inplace=False)
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = small.value
        if isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name):
            ok = _noop_when_false(ctx, fn, call, call.func.value.value, facts, inplace=True)
    elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Subscript):
        sub = small.targets[0].target
        if isinstance(sub.value, cst.Name) and len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index):
            m = _norm(ctx, sub.slice[0].slice.value)
            ok = ("mask", m) in facts and fn.kind(sub.slice[0].slice.value) in TENSORISH and \
                effect_of(ctx, [small.value]) is None
    if not ok:
        return None
    rep = _render([_code(ctx, small).strip()], _comments(ctx, [st]), place.indent)
    if ("nan",) in facts:
        return Rewrite(
            Fix(rep, FixSafety.UNSAFE, "drop the `if`: the guarded operation changes nothing when the condition is "
                "false, except when the tensor has a NaN (its max()/min() is NaN and the guard false); "
                "`(x > M).any()` has no such exception", title="run the no-op-when-false operation unconditionally",
                kind="guard"),
            st,
        )
    return Rewrite(
        Fix(rep, FixSafety.SAFE, "drop the `if`: the guarded operation changes nothing when the condition is false",
            title="run the no-op-when-false operation unconditionally", kind="guard"),
        st,
    )


def _guard_facts(ctx, fn, test) -> set:
    """What a false guard proves: ('le', X, M): all X <= M; ('ge', X, m); ('mask', M): M all
    False; ('finite', X): X all finite."""
    facts: set = set()
    parts = []

    def ors(e):
        if isinstance(e, cst.BooleanOperation) and isinstance(e.operator, cst.Or):
            ors(e.left)
            ors(e.right)
        else:
            parts.append(e)
    ors(test)
    for p in parts:
        f = _one_guard(ctx, fn, p)
        if f is None:
            return set()
        facts |= f
    return facts


def _strip_item(e):
    if isinstance(e, cst.Call) and not e.args and isinstance(e.func, cst.Attribute) and e.func.attr.value == "item":
        return e.func.value
    return e


def _reduction(e, names: tuple[str, ...]):
    """X for `X.max()` / `torch.max(X)` (no dim) with the reduction in names."""
    e = _strip_item(e)
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value in names:
        if not e.args:
            return e.func.value
        if len(e.args) == 1 and e.args[0].keyword is None and isinstance(e.func.value, cst.Name) \
                and e.func.value.value == "torch":
            return e.args[0].value
    return None


def _one_guard(ctx, fn, p) -> Optional[set]:
    p = _strip_item(p)
    # not X.isfinite().all() / ~torch.isfinite(X).all() / (~torch.isfinite(X)).any()
    if isinstance(p, cst.UnaryOperation) and isinstance(p.operator, (cst.Not, cst.BitInvert)):
        inner = _reduction(p.expression, ("all",))
        x = _isfinite_of(inner)
        if x is not None:
            return {("finite", _norm(ctx, x))}
        return None
    any_of = _reduction(p, ("any",))
    if any_of is not None:
        if isinstance(any_of, cst.UnaryOperation) and isinstance(any_of.operator, cst.BitInvert):
            x = _isfinite_of(any_of.expression)
            if x is not None:
                return {("finite", _norm(ctx, x))}
        if isinstance(any_of, cst.Comparison) and len(any_of.comparisons) == 1:
            return _bound_fact(ctx, any_of.left, any_of.comparisons[0].operator, any_of.comparisons[0].comparator)
        if fn.kind(any_of) in TENSORISH:
            return {("mask", _norm(ctx, any_of))}
        return None
    if isinstance(p, cst.Comparison) and len(p.comparisons) == 1:
        op, right = p.comparisons[0].operator, p.comparisons[0].comparator
        left = p.left
        # x.max() > M is NaN when x has a NaN, and the guard is then false with values above M
        # (measured: the unconditional clamp differs there): equivalent for NaN-free x only
        mx = _reduction(left, ("max", "amax"))
        if mx is not None and isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
            return {("le", _norm(ctx, mx), _norm(ctx, _strip_item(right))), ("nan",)}
        mn = _reduction(left, ("min", "amin"))
        if mn is not None and isinstance(op, (cst.LessThan, cst.LessThanEqual)):
            return {("ge", _norm(ctx, mn), _norm(ctx, _strip_item(right))), ("nan",)}
        # M.sum() > 0 for a boolean mask
        sm = _reduction(left, ("sum",))
        if sm is not None and isinstance(op, cst.GreaterThan) and literal_value(right) == 0 and \
                _is_mask(fn, sm):
            return {("mask", _norm(ctx, sm))}
    return None


def _is_mask(fn, e) -> bool:
    return fn.kind(e) == MASK


def _isfinite_of(e):
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "isfinite":
        if not e.args:
            return e.func.value
        if len(e.args) == 1:
            return e.args[0].value
    return None


def _bound_fact(ctx, left, op, right) -> Optional[set]:
    """(X > M).any() false -> X <= M; (X < m).any() false -> X >= m."""
    if isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
        return {("le", _norm(ctx, left), _norm(ctx, right))}
    if isinstance(op, (cst.LessThan, cst.LessThanEqual)):
        return {("ge", _norm(ctx, left), _norm(ctx, right))}
    return None


def _noop_when_false(ctx, fn, value, x: str, facts: set, *, inplace: bool) -> bool:
    if not isinstance(value, cst.Call):
        return False
    name = _call_name(value)
    f = value.func
    q = ctx.model.imports.resolve(f) if isinstance(f, cst.Attribute) else None
    if q == "torch.where" and not inplace and len(value.args) == 3 and all(a.keyword is None for a in value.args):
        # torch.where(M, v, x): x wherever M is False
        m, v, other = (a.value for a in value.args)
        return (isinstance(other, cst.Name) and other.value == x and ("mask", _norm(ctx, m)) in facts
                and effect_of(ctx, [v]) is None)
    # the operand: method receiver, or first positional argument of torch.clamp(x, ...)
    args = list(value.args)
    if isinstance(f, cst.Attribute) and q is None:
        recv = f.value
    elif q is not None and q.startswith("torch") and args and args[0].keyword is None:
        recv = args[0].value
        args = args[1:]
    else:
        return False
    if not (isinstance(recv, cst.Name) and recv.value == x):
        return False
    if effect_of(ctx, [a.value for a in args]) is not None:
        return False
    base = name.rstrip("_") if inplace else name
    if inplace != name.endswith("_"):
        return False
    if base in ("clamp", "clip", "clamp_max", "clamp_min"):
        lo = hi = None
        pos = [a for a in args if a.keyword is None]
        kw = {a.keyword.value: a.value for a in args if a.keyword is not None}
        if base == "clamp_max":
            hi = pos[0].value if pos else kw.get("max")
        elif base == "clamp_min":
            lo = pos[0].value if pos else kw.get("min")
        else:
            lo = pos[0].value if len(pos) > 0 else kw.get("min")
            hi = pos[1].value if len(pos) > 1 else kw.get("max")
        if lo is not None and literal_value(lo) is None:
            lo = None
        if hi is not None and literal_value(hi) is None:
            hi = None
        if lo is None and hi is None:
            return False
        if hi is not None and ("le", x, _norm(ctx, hi)) not in facts:
            return False
        if lo is not None and ("ge", x, _norm(ctx, lo)) not in facts:
            return False
        return True
    if base == "masked_fill":
        if not args:
            return False
        return ("mask", _norm(ctx, args[0].value)) in facts
    if base == "nan_to_num":
        return ("finite", x) in facts
    return False


# ---------------------------------------------------------------------------------------
# EXL102: a Python number from a tensor, only used to choose between tensors
# ---------------------------------------------------------------------------------------


def item_rewrite(ctx, fn, call) -> dict:
    """``fix=`` / ``fix_node=`` keyword arguments for the EXL102 report (empty: no rewrite)."""
    try:
        rw = _item_rewrite(ctx, fn, call)
    except Exception:  # noqa: BLE001
        rw = None
    return {"fix": rw.fix, "fix_node": rw.node} if rw is not None and rw.fix is not None else {}


def _item_rewrite(ctx, fn, site) -> Optional[Rewrite]:
    node = site.node
    f = node.func
    if isinstance(f, cst.Attribute) and f.attr.value == "item" and not node.args:
        inner = f.value
    elif isinstance(f, cst.Name) and f.value in ("bool", "float") and len(node.args) == 1:
        inner = node.args[0].value
    else:
        return None
    if fn.kind(inner) not in TENSORISH:
        return None
    # the assignment holding it: `n = <call>` or `n = <call> <cmp> <constant>`
    stmt_value = None
    name = None
    for small in _smalls(fn.node):
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            v = small.value
            if v is node or (isinstance(v, cst.Comparison) and len(v.comparisons) == 1 and
                             (v.left is node and _constant(fn, v.comparisons[0].comparator) or
                              v.comparisons[0].comparator is node and _constant(fn, v.left))):
                name, stmt_value = small.targets[0].target.value, v
                break
    if name is None:
        return None
    if sum(1 for s in _smalls(fn.node) if name in _assigned_names([s])) != 1 or name in _params(fn):
        return None
    uses = _uses(fn.node, name)
    if not uses:
        return None
    compared = stmt_value is not node
    for parent in uses:
        if isinstance(parent, (cst.If, cst.IfExp, cst.While)):
            continue  # the truth value: the branch then becomes a torch.where
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
            continue
        if not compared and isinstance(parent, cst.BinaryOperation) and not isinstance(
                parent.operator, cst.MatrixMultiply):
            other = parent.right if isinstance(parent.left, cst.Name) and parent.left.value == name else parent.left
            if fn.kind(other) in TENSORISH:
                continue
        return None
    src = _expr(ctx, inner)
    return Rewrite(
        Fix(_paren(src), FixSafety.UNSAFE, f"keep `{src}` a tensor (0-d); `{name}` only chooses between tensors or "
            "scales them (verify with --confirm)", title="keep the tensor (drop the conversion)", kind="item"),
        node,
    )


def _constant(fn, e) -> bool:
    return _is_number(e) or fn.kind(e) == CONST


def _smalls(fnode):
    class V(cst.CSTVisitor):
        def __init__(self):
            self.out = []

        def visit_SimpleStatementLine(self, n) -> None:
            self.out.extend(n.body)

        def visit_FunctionDef(self, n) -> Optional[bool]:
            return n is fnode
    v = V()
    fnode.visit(v)
    return v.out


def _uses(fnode, name: str) -> list:
    """Parents of every load of ``name`` (If / IfExp / While when it is the whole test)."""
    parents: list = []

    class V(cst.CSTVisitor):
        def __init__(self):
            self.stack: list = []

        def on_visit(self, n) -> bool:
            if isinstance(n, cst.Name) and n.value == name and self.stack:
                p = self.stack[-1]
                if isinstance(p, (cst.If, cst.While, cst.IfExp)) and p.test is not n:
                    parents.append(None)
                elif not isinstance(p, cst.AssignTarget):
                    parents.append(p)
            self.stack.append(n)
            return True

        def on_leave(self, n) -> None:
            self.stack.pop()

    fnode.body.visit(V())
    return [p for p in parents]
