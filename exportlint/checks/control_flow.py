"""EXL1xx: data-dependent control flow, conversions, loops, slicing; shape specialisation."""

from __future__ import annotations

from typing import Collection, Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.check_only import check_only_nodes, only_checked
from exportlint.checks.common import (
    call_exporters,
    carried_dims,
    carried_sizes,
    declared_dims,
    declares_dynamic,
    dynamic_dims,
    snippet,
    with_carried,
)
from exportlint.checks.size_semantics import data_size_branch
from exportlint.findings import Severity
from exportlint.semantics.kinds import CONST, DATA, SHAPE, TENSORISH
from exportlint.semantics.model import iter_nodes, literal_value, names_in
from exportlint.semantics.project import REACH_KEY

#: APIs whose arguments are sizes, counts or positions: a Python number from tensor data there
#: gives a value-dependent shape (EXL104)
SIZE_APIS = frozenset(
    "topk kthvalue narrow view reshape expand repeat new_zeros new_ones new_empty new_full "
    "zeros ones empty full arange linspace logspace randn rand randint randperm eye split chunk "
    "unfold roll tensor_split repeat_interleave pad interpolate select index_select".split()
)


def _conversion_calls(e) -> list:
    """`.item()` / `.tolist()` / int(t)-style calls inside a small expression."""
    out, stack = [], [e]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Call):
            f = n.func
            if (isinstance(f, cst.Attribute) and f.attr.value in ("item", "tolist")) or (
                isinstance(f, cst.Name) and f.value in ("int", "float", "bool", "complex")
            ):
                out.append(n)
            stack.extend(a.value for a in n.args)
            stack.append(f)
        elif isinstance(n, cst.Attribute):
            stack.append(n.value)
        elif isinstance(n, (cst.BinaryOperation, cst.BooleanOperation)):
            stack.extend((n.left, n.right))
        elif isinstance(n, cst.UnaryOperation):
            stack.append(n.expression)
        elif isinstance(n, cst.Comparison):
            stack.append(n.left)
            stack.extend(c.comparator for c in n.comparisons)
        elif isinstance(n, cst.Subscript):
            stack.append(n.value)
            for el in n.slice:
                sl = el.slice
                if isinstance(sl, cst.Index):
                    stack.append(sl.value)
                else:
                    stack.extend(x for x in (sl.lower, sl.upper, sl.step) if x is not None)
    return out


def size_arg_sites(fn):
    """(call, arg) where a DATA-kind value is passed to a size/count argument."""
    for call in fn.calls:
        q = call.qualname or ""
        if not q.startswith("torch."):
            continue  # torch functions and methods of tensor-kind values ("torch.Tensor.view")
        if q.rsplit(".", 1)[-1] not in SIZE_APIS:
            continue
        for a, k in zip(call.node.args, call.arg_kinds):
            if k == DATA:
                yield call, a
                break


def _int_float_conversion(fn, e) -> bool:
    """Whether a DATA value reaches `e` through int()/float() (torch.export non-strict rejects
    those) rather than only through `.item()` / `.tolist()` (kept symbolic by torch.export and
    onnx-dynamo: measured for slices, view, topk and new_zeros sizes)."""
    convs = list(_conversion_calls(e))
    used = names_in(e)
    if used:
        for fcall in fn.calls:
            if fn.assigned_to.get(id(fcall.node)) in used:
                convs.extend(_conversion_calls(fcall.node))
    if not convs:
        return True  # origin unknown: keep the conservative claim
    sites = {id(c.node): c for c in fn.calls}

    def tensor_to_number(c) -> bool:  # int(t) on a tensor, not int(v) on a number from .tolist()
        site = sites.get(id(c))
        return site is None or not site.arg_kinds or site.arg_kinds[0] in TENSORISH

    return any(isinstance(c.func, cst.Name) and tensor_to_number(c) for c in convs)


def _size_exporters(fn, e) -> tuple[str, ...]:
    return ("export-nonstrict", "onnx-legacy") if _int_float_conversion(fn, e) else ("onnx-legacy",)


def consumed_conversions(fn) -> set[int]:
    """Conversions reported by a more specific rule (branch, loop bound, slice, size)."""
    ids: set[int] = set()
    exprs = [b.node for b in fn.branches if b.kind == DATA]
    exprs += [lp.iter for lp in fn.loops if lp.kind == DATA]
    for sub in fn.subscripts:
        if DATA in sub.index_kinds:
            exprs.append(sub.node)
    exprs += [a.value for _, a in size_arg_sites(fn)]
    for e in exprs:
        ids.update(id(c) for c in _conversion_calls(e))
    return ids

_CONSTRUCT = {
    "if": "`if`",
    "elif": "`elif`",
    "while": "`while`",
    "ifexp": "conditional expression",
    "assert": "`assert`",
    "comprehension": "comprehension filter",
}


#: dtypes a model runs in by default (the gate `x.dtype == <one of them> and <data>` is true in a default export)
_DEFAULT_DTYPES = frozenset({"torch.float32", "torch.float"})


def _dtype_gate(ctx, test: cst.BaseExpression, culprit: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The comparison ``<x>.dtype == torch.float16`` (or ``in (torch.float16, torch.bfloat16)``)
    of an ``and`` whose later operand holds ``culprit``: the data-dependent test runs only when
    the model runs in one of those dtypes, never in a default float32 export (the dtype is fixed
    at export time and ``and`` short-circuits). None when the gate names float32, or is not a
    literal dtype test."""
    while isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        left, right = test.left, test.right
        if any(n is culprit for n in iter_nodes(right)):
            gates = [left]
            while isinstance(gates[-1], cst.BooleanOperation) and isinstance(gates[-1].operator, cst.And):
                g = gates.pop()
                gates += [g.left, g.right]
            for g in gates:
                if _non_default_dtype_test(ctx, g):
                    return g
            test = right
            continue
        test = left
    return None


def _non_default_dtype_test(ctx, e: cst.BaseExpression) -> bool:
    if not isinstance(e, cst.Comparison) or len(e.comparisons) != 1:
        return False
    op = e.comparisons[0].operator
    a, b = e.left, e.comparisons[0].comparator
    if not isinstance(op, (cst.Equal, cst.Is, cst.In)):
        return False
    if not (isinstance(a, cst.Attribute) and a.attr.value == "dtype"):
        if isinstance(op, cst.In) or not (isinstance(b, cst.Attribute) and b.attr.value == "dtype"):
            return False
        a, b = b, a
    items = [el.value for el in b.elements] if isinstance(op, cst.In) and isinstance(b, (cst.Tuple, cst.List, cst.Set)) \
        else [b]
    names = [ctx.model.imports.resolve(i) or "" for i in items]
    return bool(names) and all(n.startswith("torch.") and n.count(".") == 1 for n in names) \
        and not (set(names) & _DEFAULT_DTYPES)


@register
class DataDependentBranch(Rule):
    code = "EXL101"
    name = "data-dependent-branch"
    severity = Severity.ERROR
    summary = "A branch, loop condition or assert depends on tensor values."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for br in fn.branches:
                if br.kind != DATA:
                    continue
                if fn.checked_names and names_in(br.node) & fn.checked_names:
                    continue  # bounded with torch._check*: the author made it decidable
                what = _CONSTRUCT[br.construct]
                culprit = br.culprit if br.culprit is not None else br.node
                src = snippet(ctx, culprit)
                if br.construct == "assert":
                    msg = (
                        f"{what} on tensor data (`{src}`): torch.export cannot evaluate it at export time "
                        "(data-dependent guard), and ONNX tracing drops or bakes it. Use "
                        "`torch._check(...)` for shape facts, or move the check out of forward."
                    )
                else:
                    msg = (
                        f"{what} depends on tensor data (`{src}`): torch.export fails with a data-dependent guard; "
                        "ONNX tracing bakes in the branch taken by the example input. Compute both sides and "
                        "select with `torch.where(cond, a, b)` / a mask, or use `torch.cond` (torch.export)."
                    )
                from exportlint.fixes.rewrites import branch_rewrite  # (only for a finding)

                rw = branch_rewrite(ctx, fn, br)
                gate = _dtype_gate(ctx, br.node, culprit) if br.culprit is not None else None
                if gate is not None:
                    # measured (bench/labels/probes_zoo10/probe_dtype_gate.py): float32 exports pass
                    # with all four; a float16 model fails torch.export and onnx-dynamo
                    msg = (f"{what} depends on tensor data (`{src}`) only when `{snippet(ctx, gate)}`: the dtype "
                           "is fixed at export time, so a float32 export never runs the data test; exporting the "
                           "model in that dtype fails torch.export and onnx-dynamo (data-dependent guard). Compute "
                           "both sides and select with `torch.where(cond, a, b)` if you export in that dtype.")
                    ctx.report(br.node, msg + rw.note, severity=Severity.WARNING,
                               exporters=("export-strict", "export-nonstrict", "onnx-dynamo"), fix=rw.fix,
                               fix_node=rw.node)
                    continue
                ctx.report(br.node, msg + rw.note, fix=rw.fix, fix_node=rw.node)
        self._size_vs_data(ctx)
        return ()

    def _size_vs_data(self, ctx):
        """Builtin ``max(n, t.max())`` / ``min(...)`` of a size and tensor data: Python compares
        them, a data-dependent test on the symbolic size. Measured (torch 2.13, icefall's
        ``make_pad_mask``: ``max(max_len, lengths.max())`` with ``max_len = x.size(1)``, N and T
        dynamic): strict, non-strict and onnx-dynamo fail there ('Could not guard on
        data-dependent expression'); the legacy exporter records the example's choice
        (TracerWarning) and matched at other sizes. With a constant (``max(0, t.max())``) or
        static shapes every exporter passes."""
        mode = None
        for fn in ctx.model.functions:
            for call in fn.calls:
                if call.qualname not in ("max", "min", "builtins.max", "builtins.min"):
                    continue
                args = call.node.args
                if len(args) < 2 or any(a.star or a.keyword is not None for a in args):
                    continue
                ks = call.arg_kinds
                if SHAPE not in ks or not any(k == DATA or k in TENSORISH for k in ks):
                    continue
                if mode is None:
                    mode = declares_dynamic(ctx)
                    mode = "off" if mode is False else mode
                if mode == "off":
                    return
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` compares a size with tensor data (Python's `{call.qualname}` "
                    "tests which is larger): with that size dynamic torch.export fails with a data-dependent "
                    "guard ('Could not guard on data-dependent expression'), and onnx-dynamo with it; the "
                    "legacy exporter records the example's choice. Use `torch.clamp(t, min=n)` / "
                    "`torch.maximum` on tensors, or the size alone when the data cannot exceed it.",
                    severity=None if mode is True else Severity.WARNING,
                    exporters=("export-strict", "export-nonstrict", "onnx-dynamo"),
                )


@register
class TensorToPython(Rule):
    code = "EXL102"
    name = "tensor-to-python"
    severity = Severity.ERROR
    exporters = ("export-nonstrict", "onnx-legacy")
    summary = "A tensor value is converted to a Python number/list (.item(), int(t), .tolist())."

    def check(self, ctx):
        in_checks: Optional[set[int]] = None
        for fn in ctx.model.functions:
            consumed = consumed_conversions(fn)
            assumed = _assumes_constant(ctx, fn)
            for call in fn.calls:
                node = call.node
                if id(node) in consumed:
                    continue
                name = fn.assigned_to.get(id(node))
                if name is not None and name in fn.checked_names:
                    continue  # bounded with torch._check*
                exporters = ("export-nonstrict", "onnx-legacy")
                if call.receiver_kind in TENSORISH and call.method in ("item", "tolist"):
                    what = f"`.{call.method}()`"
                    exporters = ("onnx-legacy",)  # measured: torch.export and onnx-dynamo keep it symbolic
                    if name is not None and only_checked(fn.node, name, logs=True):
                        continue  # read only by a check / assert / raise / log: the baked value reaches no output
                    if in_checks is None:
                        in_checks = check_only_nodes(ctx.model, logs=True)
                    if id(node) in in_checks:
                        continue  # `KORNIA_CHECK(x.all().item(), ...)`, `logging.info(f"{x.tolist()}")`
                    if _own_constant_weight(fn, call):
                        continue  # `self.thr.item()` of a buffer never written after __init__ (P-WEIGHTCONST)
                    if _weights_only(ctx, fn, node.func.value):
                        continue  # `torch.stack([p.isnan().any() for p in self.head.parameters()]).any().item()` (P-PARAMITEM)
                elif (
                    call.method is None
                    and call.qualname in ("int", "float", "bool", "complex")
                    and call.arg_kinds
                    and call.arg_kinds[0] in TENSORISH
                    and call.kind not in (SHAPE, CONST)  # `int(torch.div(x.shape[1], n))`: a size (P-SIZEARITH)
                ):
                    what = f"`{call.qualname}(tensor)`"
                    if own_constant_tensor(fn, node.args[0].value):
                        # `float(self.neg_min)` of a buffer never written after __init__: legacy records
                        # the constant it stores anyway (passes and matches); non-strict still rejects
                        # the conversion (bench/labels/probes_prec16/q1 q22, R-WEIGHTCONSTFLOAT)
                        exporters = ("export-nonstrict",)
                else:
                    continue
                if assumed:
                    # measured (ExportDB assume_constant_result): strict bakes the value (wrong for other
                    # inputs), non-strict / onnx-dynamo keep it symbolic, the legacy trace stays dynamic
                    ctx.report(
                        node,
                        f"{what} in a `@assume_constant_result` function (`{snippet(ctx, node)}`): torch.export "
                        "strict records the example's value as a constant, so the exported program is wrong for "
                        "other inputs. Drop the decorator if the value depends on the input.",
                        exporters=("export-strict",),
                    )
                    continue
                from exportlint.fixes.rewrites import item_rewrite  # (only for a finding)

                ctx.report(
                    node,
                    (f"{what} turns tensor data into a Python value (`{snippet(ctx, node)}`): legacy ONNX tracing "
                     "records it as a constant (wrong for other inputs)"
                     + ("" if exporters == ("onnx-legacy",) else "; torch.export non-strict rejects the conversion")
                     if exporters != ("export-nonstrict",) else
                     f"{what} of a weight the module never writes after `__init__` (`{snippet(ctx, node)}`): "
                     "torch.export non-strict rejects the conversion (the other exporters record the constant, "
                     "which is right at every input)")
                    + ". Keep it a tensor (e.g. `t.to(dtype)`, broadcasting, `torch.where`).",
                    exporters=exporters,
                    **item_rewrite(ctx, fn, call),
                )
        return ()


def _own_constant_weight(fn, call) -> bool:
    """P-WEIGHTCONST: `.item()` / `.tolist()` of the module's own registered buffer, parameter or
    tensor attribute set in ``__init__`` (`self.thr.item()`, `self.w[i].item()` with a non-data
    index), when no method of the class writes it after ``__init__`` (no assignment, augmented
    assignment, item assignment or in-place method call on it). The legacy exporter stores
    buffers and weights as constants of the ONNX file anyway; the number it records is that
    constant, the same at every input (measured, torch 2.13: a buffer threshold, a parameter and
    a tensor attribute read with `.item()` export with onnx-legacy and match eager on other
    inputs; a buffer the forward advances in place, `self.step.add_(1)`, does not match:
    bench/labels/probes_prec12/l2_fix_claims.py l2b/l2c). mmagic's PGGAN reads its testing scale
    from a buffer, its CLIP wrapper a concept threshold from a parameter."""
    f = call.node.func
    if type(f) is not cst.Attribute:
        return False
    return own_constant_tensor(fn, f.value)


def own_constant_tensor(fn, r) -> bool:
    """``r`` is the module's own registered buffer, parameter or tensor attribute set in
    ``__init__`` (``self.thr``, ``self.w[i]`` with a non-data index) that no method of the class
    writes after ``__init__``: a constant of the exported model (P-WEIGHTCONST)."""
    if fn.cls is None or fn.self_name is None:
        return False
    if type(r) is cst.Subscript:
        for el in r.slice:
            if not isinstance(el.slice, cst.Index) or fn.kind(el.slice.value) in TENSORISH | {DATA}:
                return False
        r = r.value
    if not (type(r) is cst.Attribute and type(r.value) is cst.Name and r.value.value == fn.self_name):
        return False
    attr = r.attr.value
    fact = fn.cls.attrs.get(attr)
    if fact is None or fact.what not in ("buffer", "parameter", "tensor"):
        return False
    return not _written_after_init(fn.cls, attr)


def _weights_only(ctx, fn, e: cst.BaseExpression) -> bool:
    """P-PARAMITEM: the receiver of `.item()` / `.tolist()` is computed from the module's weights
    alone: torch functions and tensor methods over literals, comprehension variables that walk
    `self[.<sub>].parameters()` / `.buffers()`, and `self.<attr>` that no method other than
    ``__init__`` writes (``_written_after_init``), with no name of the function's own (an input,
    a local). Such a value is a constant of the exported model: the legacy exporter records the
    number it has at export time, which is the number at every input (measured, torch 2.13: a
    weights-only `isnan` check read with `.item()` exports with onnx-legacy and matches on other
    inputs, bench/labels/probes_prec15/p1_sample_claims.py p14; pypots' MOMENT debug check of its
    weights in forward). torch.export does fail where such a number decides a branch (p14): the
    branch is EXL101's."""
    if fn.cls is None or fn.self_name is None:
        return False
    bound: set[str] = set()
    skip: set[int] = set()
    weights = False  # at least one weight read: `torch.rand(()).item()` is no model constant
    for n in iter_nodes(e):
        t = type(n)
        if t is cst.Call:
            f = n.func
            last = f.attr.value if type(f) is cst.Attribute else f.value if type(f) is cst.Name else ""
            if last.startswith(("rand", "normal", "uniform", "bernoulli", "multinomial", "poisson", "exponential",
                                "geometric", "cauchy", "log_normal", "dropout")) or last.endswith("dropout"):
                return False  # a draw differs at each call: its number is no constant
        if t in (cst.ListComp, cst.GeneratorExp, cst.SetComp):
            f = n.for_in
            while f is not None:
                it = f.iter
                if not (type(f.target) is cst.Name and not f.ifs and type(it) is cst.Call and not it.args
                        and type(it.func) is cst.Attribute and it.func.attr.value in ("parameters", "buffers")):
                    return False
                owner = it.func.value
                while type(owner) is cst.Attribute:
                    owner = owner.value
                if not (type(owner) is cst.Name and owner.value == fn.self_name):
                    return False
                bound.add(f.target.value)
                weights = True
                f = f.inner_for_in
        elif t is cst.Attribute:
            skip.add(id(n.attr))
            if type(n.value) is cst.Name and n.value.value == fn.self_name:
                if _written_after_init(fn.cls, n.attr.value):
                    return False
                fact = fn.cls.attrs.get(n.attr.value)
                weights = weights or (fact is not None and fact.what in ("buffer", "parameter", "tensor"))
        elif t is cst.Arg and n.keyword is not None:
            skip.add(id(n.keyword))
        elif t is cst.Name and id(n) not in skip:
            v = n.value
            if v in bound or v == fn.self_name or v in ("True", "False", "None"):
                continue
            if ctx.model.imports.resolve(n) is None:
                return False  # a name of the function (an input, a local) or of unknown origin
    return weights


def _written_after_init(cls, attr: str) -> bool:
    """Whether a method of the class other than ``__init__`` writes ``self.<attr>``: assigns it
    or an item or attribute of it, or calls an in-place method on it (`self.step.add_(1)`,
    `self.buf.data.copy_(x)`)."""
    def rooted(e) -> bool:
        while type(e) in (cst.Subscript, cst.Attribute):
            if type(e) is cst.Attribute and e.attr.value == attr and type(e.value) is cst.Name:
                return e.value.value == first
            e = e.value
        return False

    for name, meth in cls.methods.items():
        if name == "__init__" or not meth.params.params:
            continue
        first = meth.params.params[0].name.value
        for n in iter_nodes(meth.body):
            t = type(n)
            if t is cst.Assign:
                if any(rooted(tg.target) for tg in n.targets):
                    return True
            elif t is cst.AugAssign or t is cst.AnnAssign:
                if rooted(n.target):
                    return True
            elif t is cst.Call and type(n.func) is cst.Attribute:
                m = n.func.attr.value
                if m.endswith("_") and not m.endswith("__") and rooted(n.func.value):
                    return True
    return False


def _assumes_constant(ctx, fn) -> bool:
    for d in fn.node.decorators:
        dec = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        q = ctx.model.imports.resolve(dec) or ""
        if q.endswith("assume_constant_result") and q.startswith("torch."):
            return True
    return False


@register
class DataDependentLoop(Rule):
    code = "EXL103"
    name = "data-dependent-loop"
    severity = Severity.ERROR
    summary = "A loop's trip count comes from tensor data."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for loop in fn.loops:
                if loop.kind != DATA:
                    continue
                ctx.report(
                    loop.iter,
                    f"loop trip count depends on tensor data (`{snippet(ctx, loop.iter)}`): tracing unrolls it for "
                    "the example input only, torch.export cannot decide it. Vectorise the loop (batched ops, "
                    "masks) or give it a static bound.",
                )
        return ()


@register
class DataDependentSlice(Rule):
    code = "EXL104"
    name = "data-dependent-slice"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-legacy")
    summary = "Indexing/slicing bounds or size arguments come from tensor data as Python numbers."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for call, elem in _tensor_pad_amounts(fn):
                ctx.report(
                    call.node,
                    f"`F.pad` with a pad amount that is a 0-d tensor (`{snippet(ctx, elem)}`): strict "
                    "torch.export turns it into an unbacked size it cannot return ('Pending unbacked symbols "
                    "{u0} not in returned outputs'); non-strict torch.export passes. Compute "
                    "the pad amounts from sizes as Python ints (`max(h for h, _ in sizes) - h`).",
                    exporters=("export-strict",),
                )
            for call, arg in size_arg_sites(fn):
                exps = _size_exporters(fn, arg.value)
                ctx.report(
                    arg.value,
                    f"size argument comes from tensor data as a Python number (`{snippet(ctx, arg.value)}` in "
                    f"`{snippet(ctx, call.node)}`): legacy ONNX tracing bakes it in"
                    + (", torch.export non-strict cannot convert it" if "export-nonstrict" in exps else "")
                    + ". Keep the size static, or use a mask instead of a value-dependent size.",
                    exporters=exps,
                )
            for sub in fn.subscripts:
                if DATA in sub.index_kinds:
                    exps = _size_exporters(fn, sub.node)
                    ctx.report(
                        sub.node,
                        f"slice bound or index comes from tensor data (`{snippet(ctx, sub.node)}`): the result's "
                        "shape depends on values. ONNX tracing bakes the bound in"
                        + ("; torch.export non-strict cannot convert `int(t)`" if "export-nonstrict" in exps else "")
                        + ". Keep the bound a tensor (`x[:, : t.max()]`), use a mask (`x * mask`), or "
                        "`torch.narrow` with a static length.",
                        exporters=exps,
                    )
        return ()


def _tensor_pad_amounts(fn):
    """(call, element) for ``F.pad(x, pad)`` calls whose ``pad`` sequence (a list / tuple display,
    or a name bound once in the function to one) holds an element known to be a tensor (measured,
    torch 2.13: pads that are 0-d tensors, from sizes stacked into tensors or from data, fail
    strict torch.export with PendingUnbackedSymbolNotFound; non-strict passes; int pads pass)."""
    for call in fn.calls:
        if call.qualname != "torch.nn.functional.pad" or call.guarded:
            continue
        pos = call.positional()
        arg = pos[1] if len(pos) > 1 else call.kwarg("pad")
        if arg is None:
            continue
        seq = arg.value
        if isinstance(seq, cst.Name):
            bound = [st for st in iter_nodes(fn.node.body) if isinstance(st, (cst.Assign, cst.AugAssign, cst.AnnAssign))
                     and any(isinstance(t, cst.Name) and t.value == seq.value for t in _targets_of(st))]
            if len(bound) != 1 or not isinstance(bound[0], cst.Assign) or len(bound[0].targets) != 1:
                continue
            seq = bound[0].value
        if not isinstance(seq, (cst.List, cst.Tuple)):
            continue
        for el in seq.elements:
            if isinstance(el, cst.StarredElement):
                break
            if fn.kind(el.value) in TENSORISH and _made_by_a_tensor_call(fn, el.value):
                yield call, el.value
                break


def _made_by_a_tensor_call(fn, e) -> bool:
    """``e`` holds a call with a tensor result (`(y > 0).sum()`), itself or through a name bound
    once in ``fn`` to one (`m = torch.stack(...).max()`): a tensor the function makes, not a
    parameter whose kind is assumed (a submodule's `forward(x, H, W)` takes ints from its caller)."""
    def has_call(x) -> bool:
        return any(isinstance(n, cst.Call) and fn.kind(n) in TENSORISH for n in iter_nodes(x))

    if has_call(e):
        return True
    for n in iter_nodes(e):
        if not isinstance(n, cst.Name):
            continue
        bound = [st for st in iter_nodes(fn.node.body) if isinstance(st, (cst.Assign, cst.AugAssign, cst.AnnAssign))
                 and any(isinstance(t, cst.Name) and t.value == n.value for t in _targets_of(st))]
        if len(bound) == 1 and isinstance(bound[0], cst.Assign) and len(bound[0].targets) == 1 \
                and isinstance(bound[0].targets[0].target, cst.Name) and has_call(bound[0].value):
            return True
    return False


def _truth_taken_in_boolop(fn, br) -> Optional[cst.BaseExpression]:
    """The shape comparison whose truth an ``and``/``or`` takes, when the branch tests a flag bound to it.

    ``must_pad = (n % k != 0 and n > m and past is None)`` then ``if must_pad:`` (reformer): Python
    calls ``bool()`` on every operand of a boolean operation but the last where the operation is
    evaluated, so torch.export adds the size's guard at the assignment, not at the ``if``
    (bench/labels/probes_zoo16/probe_bool_flag.jsonl: the guard's user line is the operand's). Only a flag
    bound once in the function by a plain assignment, and only when the last operand is not a shape
    comparison: the last operand's truth is taken at the branch (``padding = pad_b > 0 or pad_r > 0``
    guards at the ``or`` and at each ``if padding:``), and then the branch stays the place.
    """
    if br.construct not in ("if", "elif", "while", "ifexp") or not isinstance(br.node, cst.Name):
        return None
    name, bound = br.node.value, []
    for st in iter_nodes(fn.node.body):
        tst = type(st)
        if tst in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.WithItem):
            tgt = _targets_of(st) if tst in (cst.Assign, cst.AugAssign, cst.AnnAssign) else \
                list(iter_nodes(st.target if tst is not cst.WithItem else (st.asname.name if st.asname else st.item)))
            if any(isinstance(t, cst.Name) and t.value == name for t in tgt):
                bound.append(st)
    if len(bound) != 1 or not isinstance(bound[0], cst.Assign) or len(bound[0].targets) != 1:
        return None
    value = bound[0].value
    if not isinstance(value, cst.BooleanOperation):
        return None
    operands: list[cst.BaseExpression] = []

    def flatten(e):
        if isinstance(e, cst.BooleanOperation) and not e.lpar:
            flatten(e.left)
            flatten(e.right)
        else:
            operands.append(e)

    flatten(value.left)
    operands.append(value.right)
    if fn.kind(operands[-1]) == SHAPE:
        return None  # the last operand's truth is taken at the branch too: the branch stays the place
    for op in operands[:-1]:
        if isinstance(op, cst.Comparison) and fn.kind(op) == SHAPE:
            return op
    return None


def _targets_of(st):
    if isinstance(st, cst.Assign):
        out = []
        for t in st.targets:
            out.extend(iter_nodes(t.target))
        return out
    return list(iter_nodes(st.target))


@register
class ShapeBranch(Rule):
    code = "EXL111"
    name = "shape-branch"
    severity = Severity.WARNING
    summary = "A branch or loop depends on a tensor shape (specialised at export)."

    def check(self, ctx):
        mode = declares_dynamic(ctx)
        if mode is False:
            return ()  # the project exports fixed shapes: specialising to them is what it wants
        file_dyn = dynamic_dims(ctx)
        for fn in ctx.model.functions:
            dyn = declared_dims(ctx, fn.cls.name) if getattr(ctx, "project_dynamic", None) and fn.cls else file_dyn
            # the declared dims a declared model hands this function (a block it builds, a helper
            # or inherited method it calls: semantics/dim_flow.py), and its sizes of them
            carried = carried_dims(ctx, fn)
            sizes = carried_sizes(ctx, fn)
            if carried:
                dyn = with_carried(ctx, fn, dyn)
            params = _tensor_params(fn) | set(carried)
            for br in fn.branches:
                check = br.construct == "assert" or (br.construct in ("if", "elif") and _only_raises(br.stmt))
                if br.kind == SHAPE and check:
                    eq = _equality_of_declared_dims(ctx, fn, br.node)
                    if eq is not None:
                        ctx.report(
                            br.node,
                            f"{_CONSTRUCT[br.construct]} that two sizes are equal (`{snippet(ctx, eq[0])}`) on "
                            f"dims {eq[1]} and {eq[2]}, which the project's export declares dynamic as separate "
                            "dims: torch.export turns the check into a guard their declared ranges do not "
                            "satisfy ('Constraints violated (W)', suggesting one dim equal to the other). "
                            "Declare both with one `Dim`, or drop the check. onnx-dynamo retries with the "
                            "suggested fix; the legacy exporter keeps the example's answer.",
                            exporters=("export-strict", "export-nonstrict"),
                            severity=Severity.ERROR,
                        )
                        continue
                    hit = _divisibility_on_declared_dim(ctx, fn, br.node)
                    if hit is not None:
                        # the size is one this function is handed or reads of a declared dim (not
                        # only a dim index some declaration names): the guard fails for certain
                        tight = _carried_size_read(fn, hit.left, carried_dims(ctx, fn, multiples=False), sizes)
                        ctx.report(
                            br.node,
                            f"{_CONSTRUCT[br.construct]} that a size is a multiple of something "
                            f"(`{snippet(ctx, hit)}`) on {_dim_words(ctx, fn, hit)}, a dimension the project's "
                            "export declares dynamic: torch.export turns the check into a guard the declared "
                            "range does not satisfy ('Constraints violated ... satisfy the generated guard "
                            "Eq(Mod(h, 14), 0)'). Declare the dim as a multiple (`h = 14 * Dim('_h', ...)`), "
                            "or pad to the multiple instead of checking. The ONNX exporters keep the "
                            "example's value (legacy) or retry with torch's suggested fix (dynamo).",
                            exporters=("export-strict", "export-nonstrict"),
                            severity=Severity.ERROR if tight else None,
                        )
                    continue
                if br.kind != SHAPE or check:
                    continue  # (an input check: exporters keep it as a guard/assert)
                if data_size_branch(ctx, fn, br) is not None:
                    continue  # the size of a data-dependent tensor: EXL124
                culprit = br.culprit if br.culprit is not None else br.node
                at, flag = _truth_taken_in_boolop(fn, br), ""
                if at is not None:
                    culprit, flag = at, (f" (`and`/`or` takes its truth here, for the flag `{br.node.value}` "
                                         "branched on below)")
                hit = _dynamic_hit(culprit, dyn, params) or _bound_size_hit(fn, culprit if at is not None else br.node,
                                                                              dyn, params, bool(carried))
                exps = _exporters_for_dynamic(ctx)
                if hit is None and (carried or sizes):
                    hit = _whole_shape_hit(culprit, dyn)
                if hit is None and sizes:
                    hit = _carried_size_hit(fn, culprit if at is not None else br.node, sizes)
                    # a size computed from a declared dim (`pad = (p - W % p) % p`): torch.export
                    # guards on it and fails; whether the ONNX exporters' kept branch is wrong
                    # at other sizes depends on the example (a zero pad is the identity)
                    exps = tuple(e for e in exps if e in ("export-strict", "export-nonstrict"))
                if hit is not None and exps:
                    ctx.report(
                        at if at is not None else br.node,
                        f"{_CONSTRUCT[br.construct]} on a shape (`{snippet(ctx, culprit)}`){flag} that an export call in "
                        f"this file declares dynamic ({hit}): export specialises it (error or a silently static "
                        "dimension). Use `torch.cond`, or make both paths one computation.",
                        severity=Severity.ERROR,
                        exporters=exps,
                    )
                else:
                    ctx.report(
                        at if at is not None else br.node,
                        f"{_CONSTRUCT[br.construct]} on a shape (`{snippet(ctx, culprit)}`){flag}: the export keeps only "
                        "the branch taken by the example input's shape. Fine for static shapes; with a dynamic "
                        "dimension use `torch.cond` or one computation for both cases.",
                    )
            for call, hit, d in _splits_of_declared_dims(ctx, fn):
                ctx.report(
                    call,
                    f"`{call.func.attr.value}` splits a size by a number (`{snippet(ctx, hit)}`, dim {d} of a tensor) "
                    "on a dimension the project's export declares dynamic: the new shape must hold every "
                    "element, so torch.export adds a guard that the size is a multiple "
                    "('Constraints violated', suggesting `d = k * _d`). Declare the dim as a multiple "
                    "(`k * Dim('_d', ...)`), or pad to the multiple first. onnx-dynamo retries with the "
                    "suggested fix.",
                    exporters=("export-strict", "export-nonstrict"),
                    severity=Severity.ERROR,
                )
            for loop in fn.loops:
                if loop.kind != SHAPE:
                    continue
                hit = _loop_size_hit(fn, loop, dyn, params, bool(carried), sizes)
                if hit is not None:
                    ctx.report(
                        loop.iter,
                        f"loop over a shape (`{snippet(ctx, loop.iter)}`) whose trip count is {hit}, which the "
                        "project's export declares dynamic: the exporters unroll it for the example's size "
                        "(torch.export: 'Constraints violated ... specialized it to be a constant'; onnx-dynamo "
                        "exports the dim static; the legacy exporter bakes the count). Vectorise the loop "
                        "(batched ops over that dim).",
                        severity=Severity.ERROR,
                        exporters=_exporters_for_dynamic(ctx),
                    )
                    continue
                ctx.report(
                    loop.iter,
                    f"loop over a shape (`{snippet(ctx, loop.iter)}`) is unrolled for the example input's size"
                    + (" (iterating a tensor walks its first dimension)" if loop.over_tensor else "")
                    + ": wrong or rejected when that dimension is dynamic. Vectorise it if the size can change.",
                )
        return ()


def _tensor_params(fn) -> set[str]:
    ps = list(fn.node.params.posonly_params) + list(fn.node.params.params)
    return {p.name.value for p in ps if fn.env.get(p.name.value) in TENSORISH}


def _shape_dim(fn, e) -> Optional[int]:
    """The dim index a size read ``e`` takes of its tensor: ``x.shape[d]``, ``x.size(d)``, or a
    name bound once in fn by such a read or by unpacking ``x.shape`` / ``x.size()`` (``_, _, H, W
    = x.shape``: H is dim 2); a negative index only where the unpacking gives the rank."""
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape" \
            and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index):
        d = literal_value(e.slice[0].slice.value)
        return d if isinstance(d, int) and d >= 0 else None
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "size" \
            and len(e.args) == 1:
        d = literal_value(e.args[0].value)
        return d if isinstance(d, int) and d >= 0 else None
    if not isinstance(e, cst.Name):
        return None
    found: list[Optional[int]] = []
    for n in fn.nodes():
        if not (isinstance(n, cst.Assign) and len(n.targets) == 1):
            continue
        t, v = n.targets[0].target, n.value
        if isinstance(t, cst.Name) and t.value == e.value:
            found.append(_shape_dim(fn, v) if not isinstance(v, cst.Name) else None)
        elif isinstance(t, (cst.Tuple, cst.List)):
            names = [el.value.value if isinstance(el.value, cst.Name) else None for el in t.elements]
            if e.value not in names:
                continue
            whole = (isinstance(v, cst.Attribute) and v.attr.value == "shape") or (
                isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "size"
                and not v.args)
            found.append(names.index(e.value) if whole else None)
    return found[0] if len(found) == 1 else None


def _divisibility_on_declared_dim(ctx, fn, test) -> Optional[cst.BaseExpression]:
    """The ``size % n`` of a check (``assert H % p == 0``, ``if W % p != 0: raise``) whose size is
    a dim index some export call of the project declares dynamic (its exported class, or any
    class of this file), None otherwise. ``n`` must not be 1."""
    declared: set = set()
    for dims in dynamic_dims(ctx).values():
        declared.update(d for d in dims if isinstance(d, int))
    for cls_dims in (getattr(ctx, "project_dynamic", None) or {}).values():
        for dims in cls_dims.values():
            declared.update(d for d in dims if isinstance(d, int))
    if not declared:
        return None
    for n in iter_nodes(test):
        if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Modulo):
            if literal_value(n.right) == 1:
                continue
            d = _shape_dim(fn, n.left)
            if d is not None and d in declared:
                return n
    return None


def _equality_of_declared_dims(ctx, fn, test) -> Optional[tuple]:
    """(the comparison, d1, d2) of a check ``x.shape[d1] == x.shape[d2]`` (``!=`` in an ``if``
    that raises) on one tensor, with d1 != d2 both declared dynamic by the project and not
    declared as one Dim (``{2: S, 3: S}``, index marker "same:2,3"). Measured (torch 2.13,
    onnxruntime's CenterCrop report: ``assert x.shape[2] == x.shape[3]``, H and W separate
    Dims): strict and non-strict fail 'Constraints violated (W)'; one Dim for both passes;
    onnx-dynamo and legacy pass."""
    declared: set = set()
    same: set = set()
    for dims in dynamic_dims(ctx).values():
        declared.update(d for d in dims if isinstance(d, int))
    pdyn = getattr(ctx, "project_dynamic", None) or {}
    # the declarations of the models shown to build fn's class, when the project has any: another
    # model's one Dim for H and W ("same:2,3") says nothing of this one (a project declaring
    # several models: bench/cases linted together lost pkg_center_crop_square_assert's check)
    own = [cd for name, cd in pdyn.items()
           if fn.cls is not None and (name == fn.cls.name or fn.cls.name in cd.get(REACH_KEY, ()))]
    for cls_dims in (own or list(pdyn.values())):
        for dims in cls_dims.values():
            declared.update(d for d in dims if isinstance(d, int))
            same.update(d for d in dims if isinstance(d, str) and d.startswith("same:"))
    if len(declared) < 2:
        return None
    linked = set()
    for m in same:
        ds = [int(x) for x in m[5:].split(",")]
        linked.update((a, b) for a in ds for b in ds)
    for n in iter_nodes(test):
        if not isinstance(n, cst.Comparison) or len(n.comparisons) != 1:
            continue
        op = n.comparisons[0].operator
        if not isinstance(op, (cst.Equal, cst.NotEqual)):
            continue
        left, right = n.left, n.comparisons[0].comparator
        bases = [_size_base(e) for e in (left, right)]
        if bases[0] is None or bases[0] != bases[1]:
            continue
        d1, d2 = _shape_dim(fn, left), _shape_dim(fn, right)
        if d1 is None or d2 is None or d1 == d2 or d1 not in declared or d2 not in declared:
            continue
        if (d1, d2) in linked:
            continue
        return n, d1, d2
    return None


def _splits_of_declared_dims(ctx, fn):
    """(call, the ``size // k``, dim) for ``x.view(n // k, k, ...)`` / ``reshape`` whose
    argument floor-divides a size read (``_shape_dim``) of a dim index the project declares
    dynamic, not declared as a multiple (index marker "mult:d"). Measured (torch 2.13, the TSM
    temporal shift: ``x.view(nt // n_segment, n_segment, c, h, w)``, ``NT = Dim("NT")``): strict
    and non-strict fail 'Constraints violated (NT)'; ``NT = 4 * Dim("b")`` passes, and so does a
    view that keeps the dim (``x.view(nt, c, h * w)``)."""
    declared: set = set()
    mult: set = set()
    pdyn = getattr(ctx, "project_dynamic", None) or {}
    for cls_dims in pdyn.values():
        for dims in cls_dims.values():
            mult.update(int(d[5:]) for d in dims if isinstance(d, str) and d.startswith("mult:"))
    own = declared_dims(ctx, fn.cls.name) if fn.cls is not None else {}
    if own:
        # a method of a class the project exports: the dims declared for it
        declared = {d for ds in own.values() for d in ds if isinstance(d, int)}
    elif len(pdyn) == 1 and not dynamic_dims(ctx):
        # a helper (or a submodule) of the one model the project declares: its dims. With several
        # declared models the union mixes their inputs (detectron2's `deltas.shape[1] // 4`, a
        # static class count, next to a model declaring dim 1; a Swin block's `H // ws` of a
        # model declaring only the batch): not reported. A method of another class only when
        # the declared model is shown to build that class (``REACH_KEY``): coqui-tts declares
        # the dims of a VITS copy (`deepcopy(self)`, its class unknown), and bark's
        # `C // self.n_head` of the embedding width or Glow's `c // self.num_splits` of the
        # channels are no dims of it
        decl = next(iter(pdyn.values()))
        if fn.cls is not None and fn.cls.name not in decl.get(REACH_KEY, ()):
            return
        declared = {d for dims in decl.values() for d in dims if isinstance(d, int)}
    declared -= mult
    if not declared:
        return
    for site in fn.calls:
        if site.qualname not in ("torch.Tensor.view", "torch.Tensor.reshape"):
            continue
        for a in site.node.args:
            e = _bound_once(fn, a.value)
            if (isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.FloorDivide)
                    and literal_value(e.right) != 1):
                d = _shape_dim(fn, e.left)
                if d is not None and d in declared:
                    yield site.node, e, d
                    break


def _bound_once(fn, e):
    """The value of a name assigned once in ``fn`` (``n_batch = nt // k``), else ``e``."""
    if not isinstance(e, cst.Name):
        return e
    found = []
    for n in fn.nodes():
        if isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name) \
                and n.targets[0].target.value == e.value:
            found.append(n.value)
    return found[0] if len(found) == 1 else e


def _size_base(e) -> Optional[str]:
    """``x`` of ``x.shape[d]`` / ``x.size(d)``."""
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape" \
            and isinstance(e.value.value, cst.Name):
        return e.value.value.value
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "size" \
            and isinstance(e.func.value, cst.Name):
        return e.func.value.value
    return None


def _dim_words(ctx, fn, hit) -> str:
    d = _shape_dim(fn, hit.left)
    return f"`{snippet(ctx, hit.left)}` (dim {d} of a tensor)"


def _only_raises(stmt) -> bool:
    if not isinstance(stmt, cst.If):
        return False
    body = list(stmt.body.body)
    if not body:
        return False
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine) and any(isinstance(s, cst.Raise) for s in last.body):
        return all(
            isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, (cst.Raise, cst.Expr, cst.Assign)) for x in s.body)
            for s in body
        )
    return False


def _dynamic_hit(culprit, dyn: dict[str, set], params: set[str]) -> Optional[str]:
    """'x dim 0' when culprit reads x.shape[d] / x.size(d) of a parameter declared dynamic
    (itself or inside it: `x.shape[0] > 1`)."""
    if not dyn:
        return None
    for n in iter_nodes(culprit):
        if isinstance(n, (cst.Subscript, cst.Call)):
            hit = _dynamic_read(n, dyn)
            if hit is not None:
                return hit
    return None


def size_source(fn, e, params: set[str], depth: int = 0) -> Optional[tuple[str, int]]:
    """(parameter, dim) that a size expression reads in ``fn``'s ``forward``: ``x.shape[d]``,
    ``x.size(d)``, ``len(x)`` (dim 0), or a name bound once in fn by one of these or by unpacking
    ``x.shape`` / ``x.size()`` / ``x.shape[:k]`` (``_, _, h, w = x.size()``: w is dim 3) of a tensor
    parameter ``x`` not assigned before that binding (a rebound ``x`` may hold another shape)."""
    if depth > 4:
        return None
    base = dim = None
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape" \
            and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index):
        base, dim = e.value.value, literal_value(e.slice[0].slice.value)
    elif isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "size" \
            and len(e.args) == 1:
        base, dim = e.func.value, literal_value(e.args[0].value)
    elif isinstance(e, cst.Call) and isinstance(e.func, cst.Name) and e.func.value == "len" and len(e.args) == 1:
        base, dim = e.args[0].value, 0
    if base is not None:
        if isinstance(base, cst.Name) and base.value in params and isinstance(dim, int) and dim >= 0:
            return base.value, dim
        return None
    if not isinstance(e, cst.Name):
        return None
    found: list[tuple[int, Optional[tuple[str, int]]]] = []
    for i, n in enumerate(fn.nodes()):
        if not isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            continue
        targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]
        for t in targets:
            if isinstance(t, cst.Name) and t.value == e.value:
                v = n.value if isinstance(n, cst.Assign) else None
                found.append((i, size_source(fn, v, params, depth + 1) if v is not None else None))
            elif isinstance(t, (cst.Tuple, cst.List)):
                names = [el.value.value if isinstance(el.value, cst.Name) else None for el in t.elements]
                if e.value not in names or not isinstance(n, cst.Assign):
                    continue
                v = n.value
                if isinstance(v, cst.Subscript) and len(v.slice) == 1 and isinstance(v.slice[0].slice, cst.Slice) \
                        and v.slice[0].slice.lower is None and v.slice[0].slice.step is None:
                    v = v.value  # x.shape[:2]: the leading dims
                whole = None
                if isinstance(v, cst.Attribute) and v.attr.value == "shape":
                    whole = v.value
                elif isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "size" \
                        and not v.args:
                    whole = v.func.value
                if isinstance(whole, cst.Name) and whole.value in params \
                        and not any(isinstance(m, (cst.Assign, cst.AugAssign, cst.AnnAssign))
                                    and any(isinstance(t2, cst.Name) and t2.value == whole.value for t2 in _targets_of(m))
                                    for m in fn.nodes()[:i]):
                    found.append((i, (whole.value, names.index(e.value))))
                else:
                    found.append((i, None))
    if len(found) != 1:
        return None
    return found[0][1]


def _bound_size_hit(fn, test, dyn: dict[str, set], params: set[str], carried: bool = False) -> Optional[str]:
    """'`x` dim d' when a branch test of ``forward`` reads a name bound to a size of a forward
    parameter whose dim d the project declares dynamic (``_, _, h, w = x.size()`` then
    ``if w % p != 0``). Measured (torch 2.13, bench/labels/probes_cases17 ``b_unpacked_pad_branch``;
    bench/cases/patch_pad_branch): strict and non-strict fail ('Constraints violated'), onnx-dynamo
    exports the dim static, the legacy exporter bakes the branch."""
    if not dyn or (fn.node.name.value != "forward" and not carried) or _reads_state(fn, test):
        return None
    for n in iter_nodes(test):
        if isinstance(n, cst.Name):
            src = size_source(fn, n, params)
            if src is not None and src[1] in dyn.get(src[0], ()):
                return f"`{src[0]}` dim {src[1]}"
    return None


def _reads_state(fn, test) -> bool:
    """Whether ``test`` compares a size with a ``self.<attr>`` (``==`` / ``!=``), or reads one that a
    method other than ``__init__`` writes (a cache key: YOLO's ``if (self.nx, self.ny) != (nx, ny): self.create_grids(...)``, with ``nx``
    from the input's declared H/W). Such a test compares a dynamic size with the value the module
    holds when tracing (0 at first): measured (bench/cases/yolo_grid_recompute,
    pkg_yolo_grid_cache) every exporter passes, the declared range deciding it without a guard;
    left a warning."""
    if fn.cls is None or fn.self_name is None:
        return False
    def own(e) -> set:
        return {n.attr.value for n in iter_nodes(e)
                if isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and n.value.value == fn.self_name}

    def module_value(e) -> bool:
        """``self.nx`` / ``(self.nx, self.ny)``: a side that only reads the module."""
        if not own(e):
            return False
        attr_names = {id(a.attr) for a in iter_nodes(e) if isinstance(a, cst.Attribute)}
        return all(n.value == fn.self_name for n in iter_nodes(e) if isinstance(n, cst.Name) and id(n) not in attr_names)

    attrs = own(test)
    if not attrs:
        return False
    for n in iter_nodes(test):
        # `size == self.<attr>` / `!=`: the module's value may be a cache key written elsewhere (a
        # helper of another file given `self`, pkg_yolo_grid_cache): not claimed
        if isinstance(n, cst.Comparison) and any(isinstance(c.operator, (cst.Equal, cst.NotEqual))
                                                 for c in n.comparisons):
            if module_value(n.left) or any(module_value(c.comparator) for c in n.comparisons):
                return True
    for name, meth in fn.cls.methods.items():
        if name == "__init__" or not meth.params.params:
            continue
        first = meth.params.params[0].name.value
        for n in iter_nodes(meth.body):
            if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                for t in _targets_of(n):
                    if isinstance(t, cst.Attribute) and t.attr.value in attrs and isinstance(t.value, cst.Name) \
                            and t.value.value == first:
                        return True
    return False


def _loop_size_hit(fn, loop, dyn: dict[str, set], params: set[str], carried: bool = False,
                   sizes: Collection[str] = ()) -> Optional[str]:
    """'dim d of `x`' for a loop of ``forward`` over ``range(<size>)`` (or ``range(0, <size>)``) or
    over ``x`` itself, where the size is one of a forward parameter whose dim d the project
    declares dynamic. Measured (torch 2.13, bench/labels/probes_cases17 ``b_loop_range_len``,
    ``b_loop_range_unpacked``; bench/cases/per_image_len_loop): strict and non-strict fail
    ('Constraints violated'), onnx-dynamo exports the dim static, the legacy exporter unrolls the
    example's count; a loop over a dim not declared passes everywhere. ``carried``: ``fn`` is
    handed declared dims by a declared model (semantics/dim_flow.py; held-out
    pkg_frames_loop_normalize: the same failures at a helper's loop)."""
    if not (dyn or sizes) or (fn.node.name.value != "forward" and not carried and not sizes):
        return None
    it = loop.iter
    src = None
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range" \
            and 1 <= len(it.args) <= 2 and not any(a.keyword or a.star for a in it.args):
        if len(it.args) == 2 and literal_value(it.args[0].value) != 0:
            return None
        bound = it.args[-1].value
        if isinstance(bound, cst.Name) and bound.value in sizes:
            return f"`{bound.value}`, a size of a dim declared dynamic"
        src = size_source(fn, bound, params)
    elif isinstance(it, cst.Name) and it.value in params and loop.over_tensor:
        src = (it.value, 0)
    if src is not None and src[1] in dyn.get(src[0], ()):
        return f"dim {src[1]} of `{src[0]}`"
    return None


def _whole_shape_hit(culprit, dyn: dict[str, set]) -> Optional[str]:
    """'`x.shape` (dims ...)' for an ``==`` / ``!=`` comparison of a whole shape (``x.shape !=
    skip.shape``, ``x.size() == y.size()``) of a name with declared dynamic dims: the comparison
    reads every dim, the declared ones too."""
    for n in iter_nodes(culprit):
        if not isinstance(n, cst.Comparison) or not all(
                isinstance(c.operator, (cst.Equal, cst.NotEqual)) for c in n.comparisons):
            continue
        for side in [n.left] + [c.comparator for c in n.comparisons]:
            base = None
            if isinstance(side, cst.Attribute) and side.attr.value == "shape":
                base = side.value
            elif isinstance(side, cst.Call) and isinstance(side.func, cst.Attribute) \
                    and side.func.attr.value == "size" and not side.args:
                base = side.func.value
            if isinstance(base, cst.Name) and any(isinstance(d, int) for d in dyn.get(base.value, ())):
                ds = sorted(d for d in dyn[base.value] if isinstance(d, int))
                return f"`{base.value}` dim{'s' if len(ds) > 1 else ''} {', '.join(map(str, ds))}"
    return None


def _carried_size_hit(fn, test, sizes: Collection[str]) -> Optional[str]:
    """'`n`, a size ...' when the test reads a name ``fn`` binds (every time) to a size of a
    declared dynamic dim, or is handed one (semantics/dim_flow.py)."""
    if _reads_state(fn, test):
        return None
    for n in iter_nodes(test):
        if isinstance(n, cst.Name) and n.value in sizes:
            return f"`{n.value}`, a size computed from a dim declared dynamic"
    return None


def _carried_size_read(fn, e, dyn: dict[str, set], sizes: Collection[str]) -> bool:
    """Whether the size ``e`` is a declared dynamic dim this function reads or is handed: a name
    bound to one (``sizes``), or ``x.shape[d]`` / ``x.size(d)`` of a name whose dim d is declared."""
    if isinstance(e, cst.Name) and e.value in sizes:
        return True  # (not a dim declared a multiple: semantics/dim_flow.py)
    return _dynamic_read(e, dyn) is not None if dyn else False


def _dynamic_read(culprit, dyn: dict[str, set]) -> Optional[str]:
    name = dim = None
    if isinstance(culprit, cst.Subscript) and isinstance(culprit.value, cst.Attribute) and culprit.value.attr.value == "shape":
        base = culprit.value.value
        if isinstance(base, cst.Name) and len(culprit.slice) == 1 and isinstance(culprit.slice[0].slice, cst.Index):
            name = base.value
            dim = literal_value(culprit.slice[0].slice.value)
    elif isinstance(culprit, cst.Call) and isinstance(culprit.func, cst.Attribute) and culprit.func.attr.value == "size":
        base = culprit.func.value
        if isinstance(base, cst.Name) and culprit.args:
            name = base.value
            dim = literal_value(culprit.args[0].value)
    if name is None or name not in dyn:
        return None
    dims = dyn[name]
    if dim in dims or (isinstance(dim, int) and dim < 0 and None in dims):
        return f"`{name}` dim {dim}"
    return None


def _exporters_for_dynamic(ctx) -> tuple[str, ...]:
    out: list[str] = []
    for ec in ctx.model.export_calls:
        for e in call_exporters(ec):
            if e not in out:
                out.append(e)
    return tuple(out) or ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")
