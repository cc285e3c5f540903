"""EXL151 downsample-formulas-disagree: two paths from one tensor that downsample it with different
size arithmetic (conv / pool kernel, stride, padding, dilation) meet at an add or a channel cat.

Measured with torch 2.13 (bench/labels/probes_zoo18/probe_handed_shortcut.py and
bench/labels/probes_engine21/probe_downsample_meet.py, H and W declared ``Dim(min=64,
max=1024)``): a shortcut pooled by ``MaxPool2d(2, 2)`` (``H // 2``) added to a ``Conv2d(k=3, s=2,
p=1)`` path (``(H - 1) // 2 + 1``) fails export-strict and export-nonstrict: "Constraints violated
(height, width)! ... Not all values of height ... satisfy the generated guard (L['x'].size()[2] // 2)
== (1 + (((-1) + L['x'].size()[2]) // 2))" (the two sizes differ at odd H, so the add broadcasts only
for some sizes; torch.export specialises and suggests ``height = 2*_height``). A ``Conv2d(k=2, s=2)``
path (``H // 2``, the pool's own formula) exports. onnx-dynamo (which retries with the suggested
shapes) and the legacy exporter (static shapes) export.

The rule evaluates the two paths' output-size formulas, each window op giving
``(H + 2p - d(k - 1) - 1) // s + 1`` over ``__init__``'s arguments, on sample values of the
constructor parameters they read (a stride parameter: 1 or 2, as the code's conditions allow; every
other parameter: each of 1, 2, 3) and of H, and reports only when they differ for some H under
every value of the non-stride parameters. Paths through anything else (a project module, an
unknown call, a name bound in a branch or loop) are unknown: no finding. Followed one level across
classes: a block whose ``forward(x, shortcut)`` adds ``shortcut`` to a path of ``x``, called by
another class of the file with ``(x, pooled x)`` through an attribute built from a class
handed to its constructor (``self.tree1 = block(cin, cout, stride)``) or named there.
"""

from __future__ import annotations

import ast
import itertools
import re
from typing import Any, Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import all_declared_dims, call_arg, declares_dynamic, snippet
from exportlint.findings import Severity
from exportlint.semantics.index import ast_dotted
from exportlint.semantics.model import literal_value

_CONV = {f"torch.nn.Conv{n}d" for n in (1, 2, 3)} | {f"torch.nn.modules.conv.Conv{n}d" for n in (1, 2, 3)}
_MAXP = {f"torch.nn.MaxPool{n}d" for n in (1, 2, 3)} | {f"torch.nn.modules.pooling.MaxPool{n}d" for n in (1, 2, 3)}
_AVGP = {f"torch.nn.AvgPool{n}d" for n in (1, 2, 3)} | {f"torch.nn.modules.pooling.AvgPool{n}d" for n in (1, 2, 3)}
_SEQ = {"torch.nn.Sequential", "torch.nn.modules.container.Sequential"}
#: modules whose output has the input's spatial size
_KEEP_MODULES = {
    "Identity", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Hardswish",
    "Hardsigmoid", "Mish", "ELU", "PReLU", "Dropout", "Dropout2d", "Dropout3d", "SyncBatchNorm",
}
_KEEP_FUNCS = {
    "torch.relu", "torch.sigmoid", "torch.tanh", "torch.nn.functional.relu", "torch.nn.functional.relu6",
    "torch.nn.functional.gelu", "torch.nn.functional.silu", "torch.nn.functional.leaky_relu",
    "torch.nn.functional.hardswish", "torch.nn.functional.sigmoid", "torch.nn.functional.dropout",
}
_KEEP_METHODS = {"contiguous", "relu", "relu_", "sigmoid", "clone", "float"}
_H = range(33, 97)
_VALUES = (1, 2, 3)
#: the values tried for a stride parameter: no stride, or the common 2 (a stride of 3 breaks a conv k2 path
#: that matches a pool at 2; what the construction passes is not read)
_STRIDES = (1, 2)
_POOL_CTOR = re.compile(r"(?:Max|Avg)Pool[123]d\(")
_MAX_SYMS = 5


class _Unknown(Exception):
    pass


# ---- size expressions over constructor parameters (read from the stdlib ast of the full file:
# the reduced text the model parses shortens ``__init__``'s values) ------------------------------
# an expression: int | ("sym", scope, name) | (op, a, b) with op in + - * //


def _arg(call: ast.Call, name: str, pos: int, scope: "_Scope") -> Optional[ast.expr]:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    i = 0
    for a in call.args:
        if isinstance(a, ast.Starred):
            raise _Unknown
        if i == pos:
            return a
        i += 1
    for k in call.keywords:
        if k.arg is None and name in scope.dict_keys(k.value):
            raise _Unknown  # **kwargs may carry it
    return None


def _expr(node: Optional[ast.expr], scope: "_Scope") -> Any:
    if node is None:
        raise _Unknown
    if isinstance(node, ast.Constant):
        if type(node.value) is int:
            return node.value
        raise _Unknown
    if isinstance(node, ast.Tuple) and node.elts:
        items = [_expr(e, scope) for e in node.elts]
        if all(x == items[0] for x in items):
            return items[0]
        raise _Unknown
    if isinstance(node, ast.Name):
        return scope.lookup(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return ("-", 0, _expr(node.operand, scope))
    if isinstance(node, ast.BinOp):
        op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//"}.get(type(node.op))
        if op is None:
            raise _Unknown
        return (op, _expr(node.left, scope), _expr(node.right, scope))
    raise _Unknown


def _ev(e: Any, env: dict) -> int:
    if type(e) is int:
        return e
    if e[0] == "sym":
        return env[e[1:]]
    a, b = _ev(e[1], env), _ev(e[2], env)
    if e[0] == "+":
        return a + b
    if e[0] == "-":
        return a - b
    if e[0] == "*":
        return a * b
    if b == 0:
        raise ZeroDivisionError
    return a // b


def _syms(e: Any, out: set) -> None:
    if type(e) is int:
        return
    if e[0] == "sym":
        out.add(e[1:])
        return
    _syms(e[1], out)
    _syms(e[2], out)


def _init_params(init: Optional[ast.FunctionDef]) -> tuple[list, dict]:
    """(positional parameter names after self, name -> default node or None) of an ``__init__``."""
    if init is None:
        return [], {}
    a = init.args
    pos = [p.arg for p in (*a.posonlyargs, *a.args)][1:]
    defaults: dict = {}
    plist = [*a.posonlyargs, *a.args]
    for p, d in zip(plist[len(plist) - len(a.defaults):], a.defaults):
        defaults[p.arg] = d
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        defaults[p.arg] = d
    names = pos + [p.arg for p in a.kwonlyargs]
    return names, {n: defaults.get(n) for n in names}


class _Any:
    def __contains__(self, _x: object) -> bool:
        return True


_ANY = _Any()


class _Scope:
    """The constructor parameters a class's ``__init__`` reads: a name maps to its free symbol, or
    (a block built by another class) to the expression the construction passes, or its default."""

    def __init__(self, name: str, init: Optional[ast.FunctionDef], binding: Optional[dict] = None,
                 paths: Optional["_Paths"] = None):
        self.name = name
        self.init = init
        self.paths = paths
        names, self.defaults = _init_params(init)
        self.params = set(names)
        self.binding = binding

    def dict_keys(self, e: ast.expr) -> Any:
        """The keys ``**e`` may pass: those of ``e = {'k': ...}`` / ``dict(k=...)``, the one binding
        of a local name of ``__init__``; anything else may pass any key (a set of everything)."""
        if isinstance(e, ast.Name) and self.init is not None and self.paths is not None:
            vals = self.paths.init_binds(self.name)[1].get(e.id) or ()
            if len(vals) == 1 and vals[0] is not None:
                v = vals[0]
                if isinstance(v, ast.Dict) and all(isinstance(k, ast.Constant) for k in v.keys):
                    return {k.value for k in v.keys}
                if (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "dict" and not v.args
                        and all(k.arg is not None for k in v.keywords)):
                    return {k.arg for k in v.keywords}
        return _ANY

    def lookup(self, name: str) -> Any:
        if name not in self.params:
            raise _Unknown
        if self.binding is not None and name in self.binding:
            return self.binding[name]
        return ("sym", self.name, name)


# ---- paths: a root tensor and the window ops applied to it ------------------------------------
# an op: ("win", k, s, p, d) | ("alt", ((cond, ops), ...)); cond: None, (ast test, scope) or ("not", cond)


def _window(q: str, call: ast.Call, scope: _Scope) -> tuple:
    if q in _CONV:
        k, s, p, d = (_arg(call, "kernel_size", 2, scope), _arg(call, "stride", 3, scope),
                      _arg(call, "padding", 4, scope), _arg(call, "dilation", 5, scope))
        pm = _arg(call, "padding_mode", 8, scope)
        if pm is not None and not (isinstance(pm, ast.Constant) and pm.value == "zeros"):
            raise _Unknown
    else:
        mx = q in _MAXP
        k, s, p = _arg(call, "kernel_size", 0, scope), _arg(call, "stride", 1, scope), _arg(call, "padding", 2, scope)
        d = _arg(call, "dilation", 3, scope) if mx else None
        ceil = _arg(call, "ceil_mode", 5 if mx else 3, scope)
        if ceil is not None and not (isinstance(ceil, ast.Constant) and ceil.value is False):
            raise _Unknown  # ceil mode: EXL131
        if isinstance(s, ast.Constant) and s.value is None:
            s = None
    if isinstance(p, ast.Constant) and isinstance(p.value, str):
        if p.value != "valid":
            raise _Unknown
        p = None
    ke = _expr(k, scope)
    se = _expr(s, scope) if s is not None else (ke if q not in _CONV else 1)
    pe = _expr(p, scope) if p is not None else 0
    de = _expr(d, scope) if d is not None else 1
    return ("win", ke, se, pe, de)


def _statements(body: list):
    """The statements of a body and of the bodies nested in it (not into nested functions)."""
    todo = list(reversed(body))
    while todo:
        n = todo.pop()
        yield n
        t = type(n)
        if t is ast.FunctionDef or t is ast.AsyncFunctionDef or t is ast.ClassDef:
            continue
        for f in ("body", "orelse", "finalbody", "handlers"):
            sub = getattr(n, f, None)
            if type(sub) is list:
                todo.extend(reversed(sub))


class _Paths:
    """The file's classes (stdlib ast) and what their submodules do to a size."""

    def __init__(self, ctx: Any, tree: ast.Module):
        self.ctx = ctx
        self.imports = ctx.model.imports
        self.classes: dict = {}
        for st in tree.body:
            if isinstance(st, ast.ClassDef):
                self.classes[st.name] = st
        self._attrs: dict = {}

    def init_of(self, cls: str) -> Optional[ast.FunctionDef]:
        c = self.classes.get(cls)
        if c is None:
            return None
        for st in c.body:
            if isinstance(st, ast.FunctionDef) and st.name == "__init__":
                return st
        return None

    def init_binds(self, cls: str) -> tuple[dict, dict]:
        """(attribute -> the values ``__init__`` binds ``self.<attr>`` to, or None when also bound
        otherwise; local name -> its values), one walk of ``__init__`` per class."""
        got = self._attrs.get(cls)
        if got is not None:
            return got
        attrs: dict = {}
        local: dict = {}
        init = self.init_of(cls)
        if init is not None:
            for n in _statements(init.body):
                t = type(n)
                if t is ast.Assign:
                    for tg in n.targets:
                        if type(tg) is ast.Attribute and type(tg.value) is ast.Name and tg.value.id == "self":
                            vals = attrs.setdefault(tg.attr, [])
                            if vals is not None:
                                vals.append(n.value)
                        elif type(tg) is ast.Name:
                            local.setdefault(tg.id, []).append(n.value)
                elif t is ast.AugAssign or t is ast.AnnAssign:
                    tg = n.target
                    if type(tg) is ast.Attribute:
                        attrs[tg.attr] = None
                    elif type(tg) is ast.Name:
                        local.setdefault(tg.id, []).append(None)
        got = self._attrs[cls] = (attrs, local)
        return got

    def attr_values(self, cls: str, attr: str) -> Optional[list]:
        """Every value ``__init__`` of ``cls`` binds ``self.<attr>`` to (None: never, or not only by
        plain assignments)."""
        return self.init_binds(cls)[0].get(attr) or None

    def resolve(self, func: ast.expr) -> str:
        d = ast_dotted(func)
        return self.imports.resolve_dotted(d) if d is not None else ""

    def module_ops(self, value: ast.expr, scope: _Scope) -> tuple:
        """The ops of a submodule built by ``value`` (an ``__init__`` expression)."""
        if isinstance(value, ast.IfExp):
            cond = (value.test, scope)
            return (("alt", ((cond, self.module_ops(value.body, scope)),
                             (("not", cond), self.module_ops(value.orelse, scope)))),)
        if not isinstance(value, ast.Call):
            raise _Unknown
        q = self.resolve(value.func)
        if q in _CONV or q in _MAXP or q in _AVGP:
            return (_window(q, value, scope),)
        if q in _SEQ:
            if value.keywords:
                raise _Unknown
            ops: tuple = ()
            for a in value.args:
                if isinstance(a, ast.Starred):
                    raise _Unknown
                ops += self.module_ops(a, scope)
            return ops
        if q.startswith("torch.nn.") and q.rsplit(".", 1)[-1] in _KEEP_MODULES:
            return ()
        raise _Unknown

    def attr_ops(self, cls: str, attr: str, scope: _Scope) -> tuple:
        vals = self.attr_values(cls, attr)
        if not vals:
            raise _Unknown
        if len(vals) == 1:
            return self.module_ops(vals[0], scope)
        return (("alt", tuple((None, self.module_ops(v, scope)) for v in vals)),)


def _eval_cond(cond: Any, env: dict) -> Optional[bool]:
    neg = False
    if cond[0] == "not":
        neg, cond = True, cond[1]
    test, scope = cond
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    try:
        a, b = _ev(_expr(test.left, scope), env), _ev(_expr(test.comparators[0], scope), env)
    except (_Unknown, KeyError, ZeroDivisionError):
        return None
    r = {ast.Gt: a > b, ast.GtE: a >= b, ast.Lt: a < b, ast.LtE: a <= b, ast.Eq: a == b,
         ast.NotEq: a != b}.get(type(test.ops[0]))
    if r is None:
        return None
    return (not r) if neg else r


def _sizes(ops: tuple, env: dict) -> list[list]:
    """The sizes over _H after ``ops``, one list per choice of branches (a branch whose condition
    fails under ``env`` is dropped; one whose condition is unknown is kept)."""
    return _run(ops, [list(_H)], env)


def _run(ops: tuple, outs: list[list], env: dict) -> list[list]:
    for op in ops:
        if op[0] == "win":
            _, k, s, p, d = op
            kk, ss, pp, dd = _ev(k, env), _ev(s, env), _ev(p, env), _ev(d, env)
            if ss < 1 or kk < 1 or dd < 1 or pp < 0:
                raise _Unknown
            nxt = []
            for hs in outs:
                row = []
                for h in hs:
                    v = None if h is None else (h + 2 * pp - dd * (kk - 1) - 1) // ss + 1
                    row.append(v if v is not None and v >= 1 else None)
                nxt.append(row)
            outs = nxt
        else:
            nxt = []
            for cond, sub in op[1]:
                if cond is not None and _eval_cond(cond, env) is False:
                    continue
                nxt.extend(_run(sub, outs, env))
            outs = nxt
    return outs


def _collect(ops: tuple, syms: set, strides: set) -> None:
    for op in ops:
        if op[0] == "win":
            for e in op[1:]:
                _syms(e, syms)
            _syms(op[2], strides)
        else:
            for cond, sub in op[1]:
                if cond is not None:
                    test, scope = cond[1] if cond[0] == "not" else cond
                    for n in ast.walk(test):
                        if isinstance(n, ast.Name):
                            try:
                                _syms(scope.lookup(n.id), syms)
                            except _Unknown:
                                pass
                _collect(sub, syms, strides)


def _some_differ(ra: list, rb: list) -> bool:
    pairs = [(x, y) for x, y in zip(ra, rb) if x is not None and y is not None]
    return any(x != y for x, y in pairs) and any(x == y for x, y in pairs)


def disagree(a: tuple, b: tuple) -> Optional[dict]:
    """An assignment of the stride parameters (1 or 2; the conditions of ``a if c else b`` decide the
    arm) under which the two paths' sizes agree at some H and differ at others, whatever the other
    parameters are (each of 1, 2, 3); None if none."""
    syms: set = set()
    strides: set = set()
    _collect(a, syms, strides)
    _collect(b, syms, strides)
    if len(syms) > _MAX_SYMS:
        return None
    strides &= syms
    others = sorted(syms - strides)
    strides_l = sorted(strides)
    for sv in itertools.product(_STRIDES, repeat=len(strides_l)):
        env0 = dict(zip(strides_l, sv))
        ok = True
        for ov in itertools.product(_VALUES, repeat=len(others)):
            env = {**env0, **dict(zip(others, ov))}
            try:
                sa, sb = _sizes(a, env), _sizes(b, env)
            except (_Unknown, KeyError, ZeroDivisionError):
                return None
            if not sa or not sb:
                ok = False
                break
            # every pair of branch choices must agree at some sizes (else eager fails too: not a
            # configuration anyone exports) and differ at others; a choice that always agrees may be
            # the one built
            if not all(_some_differ(ra, rb) for ra in sa for rb in sb):
                ok = False
                break
        if ok:
            return env0
    return None


# ---- the walk of a forward -----------------------------------------------------------------------


class _Walk:
    """Values of one ``forward``'s names: (root parameter, ops) or None (unknown)."""

    def __init__(self, paths: _Paths, cls: str, fn: cst.FunctionDef, scope: _Scope, handed: frozenset = frozenset()):
        self.paths = paths
        self.cls = cls
        self.scope = scope
        self.handed = handed
        self.meets: list = []  # (node, left value, right value)
        self.calls: list = []  # (attribute, call node, [arg values])
        ps = fn.params
        names = [p.name.value for p in (*ps.posonly_params, *ps.params)]
        self.params = names[1:]
        self.env: dict = {n: (n, ()) for n in self.params}
        self.body(fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ())

    def body(self, stmts) -> None:
        for st in stmts:
            if isinstance(st, cst.SimpleStatementLine):
                for small in st.body:
                    self.small(small)
            elif isinstance(st, cst.If) and self._dead_none_test(st):
                continue
            else:
                for n in _assigned(st):
                    self.env[n] = None

    def _dead_none_test(self, st: cst.If) -> bool:
        """``if p is None: ...`` (no else) for a parameter the caller passes a tensor for."""
        t = st.test
        return (st.orelse is None and isinstance(t, cst.Comparison) and isinstance(t.left, cst.Name)
                and t.left.value in self.handed and len(t.comparisons) == 1
                and isinstance(t.comparisons[0].operator, cst.Is)
                and isinstance(t.comparisons[0].comparator, cst.Name) and t.comparisons[0].comparator.value == "None")

    def small(self, small: cst.CSTNode) -> None:
        if isinstance(small, cst.Assign):
            v = self.val(small.value)
            if len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                self.env[small.targets[0].target.value] = v
            else:
                for t in small.targets:
                    for n in _target_names(t.target):
                        self.env[n] = None
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            left = self.env.get(small.target.value)
            right = self.val(small.value)
            if isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign)):
                if left is not None and right is not None:
                    self.meet(small, left, right)
            else:
                self.env[small.target.value] = None
        elif isinstance(small, cst.AnnAssign):
            for n in _target_names(small.target):
                self.env[n] = None
        elif isinstance(small, (cst.Return, cst.Expr)) and small.value is not None:
            self.val(small.value)

    def meet(self, node: cst.CSTNode, a: tuple, b: tuple) -> None:
        if a != b:
            self.meets.append((node, a, b))

    def val(self, e: cst.BaseExpression) -> Optional[tuple]:
        if isinstance(e, cst.Name):
            return self.env.get(e.value)
        if isinstance(e, cst.BinaryOperation):
            l, r = self.val(e.left), self.val(e.right)
            if isinstance(e.operator, (cst.Add, cst.Subtract, cst.Multiply)):
                if l is not None and r is not None:
                    self.meet(e, l, r)
                    return l
                if l is not None and _number(e.right):
                    return l
                if r is not None and _number(e.left):
                    return r
            return None
        if isinstance(e, cst.Call):
            return self.call(e)
        return None

    def call(self, c: cst.Call) -> Optional[tuple]:
        f = c.func
        pos = [a.value for a in c.args if a.keyword is None and not a.star]
        if (isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value == "self"
                and self.cls is not None):
            args = [self.val(a) for a in pos]
            try:
                ops = self.paths.attr_ops(self.cls, f.attr.value, self.scope)
            except _Unknown:
                self.calls.append((f.attr.value, c, args))
                return None
            if len(pos) != 1 or len(c.args) != 1 or args[0] is None:
                return None
            return (args[0][0], args[0][1] + ops)
        if isinstance(f, cst.Attribute) and f.attr.value in _KEEP_METHODS and not c.args:
            return self.val(f.value)
        q = self.paths.imports.resolve(f) or ""
        if q in _KEEP_FUNCS and pos:
            return self.val(pos[0])
        if q == "torch.cat" and pos and isinstance(pos[0], (cst.List, cst.Tuple)):
            dim = call_arg(c, "dim", 1)
            vals = [self.val(el.value) if not isinstance(el, cst.StarredElement) else None for el in pos[0].elements]
            if dim is not None and literal_value(dim) in (1, -3) and len(vals) >= 2:
                for v in vals[1:]:
                    if vals[0] is not None and v is not None:
                        self.meet(c, vals[0], v)
            return None
        for a in pos:
            self.val(a)
        return None


def _number(e: cst.BaseExpression) -> bool:
    v = literal_value(e)
    return type(v) in (int, float)


def _target_names(t: cst.CSTNode) -> list[str]:
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for el in t.elements for n in _target_names(el.value)]
    if isinstance(t, cst.StarredElement):
        return _target_names(t.value)
    return []


def _assigned(st: cst.CSTNode) -> list[str]:
    """The names a compound statement binds (its bodies' assignments, loop targets, ``with ... as``)."""
    out: list[str] = []
    todo = [st]
    while todo:
        n = todo.pop()
        t = type(n)
        if t is cst.SimpleStatementLine:
            for small in n.body:
                ts = type(small)
                if ts is cst.Assign:
                    for tg in small.targets:
                        out.extend(_target_names(tg.target))
                elif ts is cst.AugAssign or ts is cst.AnnAssign:
                    out.extend(_target_names(small.target))
            continue
        if t is cst.For:
            out.extend(_target_names(n.target))
        elif t is cst.With:
            for item in n.items:
                if item.asname is not None:
                    out.extend(_target_names(item.asname.name))
        elif t is cst.FunctionDef or t is cst.ClassDef:
            out.append(n.name.value)
            continue
        body = getattr(n, "body", None)
        if isinstance(body, cst.BaseSuite):
            todo.extend(body.body if isinstance(body, cst.IndentedBlock) else [cst.SimpleStatementLine(body.body)])
        for extra in (getattr(n, "orelse", None), getattr(n, "finalbody", None)):
            if extra is not None:
                todo.append(extra)
        for h in getattr(n, "handlers", ()):
            todo.append(h)
    return out


def _bind(scope_of: _Scope, ctor: ast.Call, caller: _Scope) -> dict:
    """``__init__``'s parameters of a block -> the expression (over the caller's constructor
    parameters) the construction ``ctor`` passes, a free symbol when unknown, the default when not
    passed."""
    init = scope_of.init
    a = init.args
    plist = [p.arg for p in (*a.posonlyargs, *a.args)][1:]
    star = any(isinstance(x, ast.Starred) for x in ctor.args)
    star_kw = any(k.arg is None for k in ctor.keywords)
    kws = {k.arg: k.value for k in ctor.keywords if k.arg is not None}
    out: dict = {}
    for i, name in enumerate([*plist, *(p.arg for p in a.kwonlyargs)]):
        arg = kws.get(name)
        if arg is None and i < len(plist) and i < len(ctor.args) and not star:
            arg = ctor.args[i]
        free = ("sym", scope_of.name, name)
        if arg is not None:
            try:
                out[name] = _expr(arg, caller)
            except _Unknown:
                out[name] = free
        elif star_kw or star or scope_of.defaults.get(name) is None:
            out[name] = free
        else:
            try:
                out[name] = _expr(scope_of.defaults[name], _Scope("", None))
            except _Unknown:
                out[name] = free
    return out


@register
class DownsampleFormulasDisagree(Rule):
    code = "EXL151"
    name = "downsample-formulas-disagree"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict")
    summary = ("Two paths that downsample one tensor with different conv/pool size arithmetic meet at an add or "
               "cat: torch.export fails on dynamic H/W.")

    def check(self, ctx):
        # a pooling module built somewhere in the file (the full text: the reduced one shortens __init__)
        text = self._full_text(ctx)
        if text is None or "Pool" not in text or _POOL_CTOR.search(text) is None:
            return ()
        tree = self._tree(ctx, text)
        if tree is None:
            return ()
        pool_lines = []
        pos = 0
        line = 1
        for m in _POOL_CTOR.finditer(text):
            line += text.count("\n", pos, m.start())
            pos = m.start()
            pool_lines.append(line)
        paths = _Paths(ctx, tree)
        classes = []
        for c in ctx.model.classes.values():
            init = paths.init_of(c.name) if c.is_module and "forward" in c.methods else None
            # one of the two paths pools, in a submodule this class builds (the other path may
            # be in a block it builds: ``_across``)
            if init is not None and any(init.lineno <= ln <= init.end_lineno for ln in pool_lines):
                classes.append(c)
        if not classes or declares_dynamic(ctx) is False:
            return ()
        reported: set = set()
        for c in classes:
            w = _Walk(paths, c.name, c.methods["forward"], _Scope(c.name, paths.init_of(c.name), None, paths))
            for node, a, b in w.meets:
                if a[0] == b[0]:
                    self._judge(ctx, c.name, node, a, b, None, reported)
            for attr, call, args in w.calls:
                self._across(ctx, paths, c.name, w, attr, call, args, reported)
        return ()

    @staticmethod
    def _full_text(ctx) -> Optional[str]:
        proj = getattr(ctx, "project", None)
        if proj is not None and getattr(proj, "run_files", None) is not None:
            from exportlint.semantics.project import file_text

            t = file_text(proj, ctx.path)
            if t is not None:
                return t
        return ctx.text

    @staticmethod
    def _tree(ctx, text: str) -> Optional[ast.Module]:
        proj = getattr(ctx, "project", None)
        if proj is not None and getattr(proj, "run_files", None) is not None:
            from exportlint.semantics.project import file_tree

            return file_tree(proj, ctx.path, keep=False)  # (its own file: not kept for the run)
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None

    def _across(self, ctx, paths, c, w, attr, call, args, reported) -> None:
        """``self.<attr>(a, b, ...)`` where ``__init__`` builds ``<attr>`` by calling a class of
        the file or a class handed to the constructor: the meets of that class's forward between two
        of its parameters, judged with what this forward passes."""
        vals = paths.attr_values(c, attr)
        if not vals or len(args) < 2 or any(a.keyword is not None or a.star for a in call.args):
            return
        for ctor in vals:  # (each value ``__init__`` may bind: each is a configuration built)
            if isinstance(ctor, ast.Call) and isinstance(ctor.func, ast.Name):
                self._across_one(ctx, paths, c, w, ctor, call, args, reported)

    def _across_one(self, ctx, paths, c, w, ctor, call, args, reported) -> None:
        name = ctor.func.id
        if name in paths.classes and name in ctx.model.classes:
            cands = [name]
        elif name in w.scope.params:
            cands = self._handed(ctx, paths, len(args))
        else:
            return
        for d in cands:
            k = ctx.model.classes.get(d)
            if d == c or k is None or "forward" not in k.methods or paths.init_of(d) is None:
                continue
            fps = k.methods["forward"].params
            params = [p.name.value for p in (*fps.posonly_params, *fps.params)][1:]
            if len(args) > len(params):
                continue
            handed = frozenset(p for p, v in zip(params, args) if v is not None)
            dscope = _Scope(d, paths.init_of(d), None, paths)
            dscope.binding = _bind(dscope, ctor, w.scope)
            bw = _Walk(paths, d, k.methods["forward"], dscope, handed)
            at = dict(zip(params, args))
            for node, a, b in bw.meets:
                ca, cb = at.get(a[0]), at.get(b[0])
                if ca is None or cb is None or ca[0] != cb[0]:
                    continue
                self._judge(ctx, c, node, (ca[0], ca[1] + a[1]), (cb[0], cb[1] + b[1]), (d, call), reported)

    @staticmethod
    def _handed(ctx, paths: _Paths, n_args: int) -> list:
        """The classes of this file a handed-class parameter may be, each judged on its own: every
        module class whose ``forward`` takes the call's arguments (which class the constructions pass
        is not read: ``param_classes`` costs more than this rule, and gives every block of a file
        that hands several)."""
        out = []
        for k in ctx.model.classes.values():
            fwd = k.methods.get("forward") if k.is_module and k.name in paths.classes else None
            if fwd is not None and len(fwd.params.params) + len(fwd.params.posonly_params) > n_args:
                out.append(k.name)
        return out

    def _judge(self, ctx, root_cls: str, node, a, b, via, reported) -> None:
        if id(node) in reported or a[1] == b[1]:
            return
        env = disagree(a[1], b[1])
        if env is None:
            return
        decl = all_declared_dims(ctx, root_cls)
        dims = set().union(*decl.values()) if decl else set()
        if decl and not any(isinstance(d, int) and d >= 2 for d in dims):
            return  # only batch / sequence declared: H/W static
        sev = None if any(isinstance(d, int) and d >= 2 for d in dims) else Severity.WARNING
        reported.add(id(node))
        at = ""
        if env:
            at = " with " + ", ".join(f"`{n}={v}`" for (_, n), v in sorted(env.items()))
        where = ""
        if via is not None:
            d, call = via
            where = (f" (`{root_cls}.forward` hands both, `{snippet(ctx, call)}`, to the `{d}` it builds in "
                     "`__init__`)")
        ctx.report(
            node,
            f"`{snippet(ctx, node)}` combines two paths from the same input that downsample it with different "
            f"conv/pool size arithmetic{where}: their sizes differ for some heights/widths{at} (e.g. "
            "`MaxPool2d(2, 2)` gives `H // 2`, a `Conv2d(k=3, s=2, p=1)` gives `(H - 1) // 2 + 1`). With H/W "
            "declared dynamic, torch.export (strict and non-strict) fails ('Constraints violated (height, width) "
            "... satisfy the generated guard (... // 2) == (1 + (((-1) + ...) // 2))'). Declare H/W as multiples "
            "of the total stride (`height = 32*_h`, as torch suggests), export with `Dim.AUTO`, or make both paths "
            "use one formula (e.g. `padding=` so the conv path gives `H // s`).",
            severity=sev,
        )
