"""EXL3xx: device and dtype mixing."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import assignments_in_scope, snippet
from exportlint.findings import Fix, FixSafety, Severity
from exportlint.semantics.kinds import CONST, SHAPE, TENSORISH
from exportlint.semantics.model import MISSING, child_nodes, dotted, iter_nodes, literal_value

_ACCEL = ("cuda", "mps", "xpu", "hpu", "npu")

#: factories whose device defaults to the global default (CPU), not to the inputs'
FACTORIES = frozenset(
    "torch." + n
    for n in (
        "zeros ones empty full arange linspace logspace eye rand randn randint randperm tensor as_tensor "
        "scalar_tensor empty_strided tril_indices triu_indices normal bartlett_window blackman_window "
        "hamming_window hann_window kaiser_window"
    ).split()
)


_MOVERS = frozenset({"to", "type_as", "cuda", "cpu", "to_device"})


def _moved_calls(fn) -> set[int]:
    """ids of calls whose result is moved as a whole: `torch.zeros(3).float().to(x.device)`,
    `torch.stack(torch.meshgrid(torch.arange(h), ...)).to(device=x.device)`."""
    out = set()
    for call in fn.calls:
        f = call.node.func
        if call.method in _MOVERS and isinstance(f, cst.Attribute):
            out.update(id(n) for n in iter_nodes(f.value) if isinstance(n, cst.Call))
    return out


def _returned_calls_and_names(fn) -> tuple[set[int], set[str]]:
    """Calls and local names in `return` values (a helper's caller decides the device)."""
    calls: set[int] = set()
    names: set[str] = set()
    for n in iter_nodes(fn.node.body):
        if isinstance(n, cst.Return) and n.value is not None:
            for x in iter_nodes(n.value):
                if isinstance(x, cst.Call):
                    calls.add(id(x))
                elif isinstance(x, cst.Name):
                    names.add(x.value)
    return calls, names


def _append_target(call) -> Optional[str]:
    """`lst` for `lst.append(...)` / `.extend(...)` / `.insert(...)` on a local name."""
    f = call.node.func
    if call.method in ("append", "extend", "insert") and isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name):
        return f.value.value
    return None


def _moved_names(fn, assigns, sinks: frozenset = frozenset()) -> set[str]:
    """Local names moved with .to(...) / .type_as(...), and the names whose values flow into
    them (`parts.append(torch.arange(n))`, `pos = torch.cat(parts)`, `pos.to(x.device)`): code
    that builds on the CPU and moves the result once."""
    out = set(sinks)
    for call in fn.calls:
        f = call.node.func
        if call.method in _MOVERS and isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name):
            out.add(f.value.value)
    flows: list[tuple[str, set[str]]] = [(n, _all_names(v)) for n, v, _ in assigns]
    for n in iter_nodes(fn.node.body):  # pe[:, 0::2] = torch.sin(position * div): flows into pe
        if isinstance(n, (cst.Assign, cst.AugAssign)):
            tgts = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]
            for t in tgts:
                if isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name):
                    flows.append((t.value.value, _all_names(n.value)))
    for call in fn.calls:  # lst.append(x) / lst.extend(xs): x flows into lst
        lst = _append_target(call)
        if lst is not None:
            flows.append((lst, set().union(*(_all_names(a.value) for a in call.node.args))))
    changed = bool(out)
    while changed:
        changed = False
        for target, sources in flows:
            if target in out and not sources <= out:
                out |= sources
                changed = True
    return out


def _all_names(e) -> set[str]:
    """Every name in an expression, displays and comprehensions included."""
    return {n.value for n in iter_nodes(e) if isinstance(n, cst.Name)}


def _scalar_expr(e) -> bool:
    """A Python number-looking expression: x.size(-1), x.shape[0], n, h * w (not x.shape)."""
    if isinstance(e, (cst.Integer, cst.Float, cst.Name)):
        return not (isinstance(e, cst.Name) and e.value in ("shape", "size", "sizes"))
    if isinstance(e, cst.Subscript):
        return len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index)
    if isinstance(e, cst.Call):
        f = e.func  # x.size(k), x.dim(), x.numel(); not x.size()
        return isinstance(f, cst.Attribute) and (f.attr.value in ("dim", "numel") or (f.attr.value == "size" and bool(e.args)))
    if isinstance(e, cst.BinaryOperation):
        return _scalar_expr(e.left) and _scalar_expr(e.right)
    if isinstance(e, cst.UnaryOperation):
        return _scalar_expr(e.expression)
    return False


def _index_only_calls(fn) -> set[int]:
    """ids of calls whose value is only ever used as an index (directly inside `t[...]`, or
    through local names used only there): a CPU index tensor indexes a tensor on any device."""
    uses: dict[str, set] = {}
    call_ctx: dict[int, object] = {}

    def walk(node, ctx) -> None:
        if isinstance(node, cst.Name):
            uses.setdefault(node.value, set()).add(ctx)
            return
        if isinstance(node, cst.Call):
            call_ctx[id(node)] = ctx
        if isinstance(node, cst.Subscript):
            walk(node.value, ctx)
            for el in node.slice:
                walk(el, "index")
            return
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            walk(node.value, ("assign", node.targets[0].target.value))
            return
        if isinstance(node, cst.Attribute):  # x.long(): the use of x is the attribute's use
            walk(node.value, ctx)
            return
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and ctx != "root":
            return
        sub = "other" if ctx == "root" else ctx
        for ch in child_nodes(node):
            walk(ch, sub)

    walk(fn.node.body, "root")
    ok = {n for n, cs in uses.items() if "other" not in cs}
    changed = True
    while changed:
        changed = False
        for n in list(ok):
            if any(isinstance(c, tuple) and c[1] not in ok for c in uses[n]):
                ok.discard(n)
                changed = True
    return {i for i, c in call_ctx.items() if c == "index" or (isinstance(c, tuple) and c[1] in ok)}


def _appended_to_moved(fn, moved: set[str]) -> set[int]:
    """ids of calls inside `lst.append(...)` where lst is later moved."""
    out: set[int] = set()
    for call in fn.calls:
        if _append_target(call) in moved:
            for a in call.node.args:
                out.update(id(n) for n in iter_nodes(a.value) if isinstance(n, cst.Call))
    return out


def _first_tensor_name(fn) -> Optional[str]:
    ps = list(fn.node.params.posonly_params) + list(fn.node.params.params)
    for p in ps:
        if fn.env.get(p.name.value) in TENSORISH:
            return p.name.value
    return None


def _is_cuda_test(test) -> bool:
    """`x.is_cuda` / `x.device.type == "cuda"`: true only where a tensor already is on the GPU."""
    if isinstance(test, cst.Attribute):
        return test.attr.value == "is_cuda"
    if (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And)
            and any(isinstance(x, cst.Name) for x in (test.left, test.right))
            and any(_is_available_call(x) for x in (test.left, test.right))):
        # `if cuda and torch.cuda.is_available(): return tensor.cuda()` (voicefixer's
        # try_tensor_cuda, T-CUDAFLAG): a GPU the caller asks for by a flag and the machine has; on
        # a CPU machine the arm does not run, and where it runs the user chose the GPU
        return True
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        c = test.comparisons[0]
        left, right = test.left, c.comparator
        if (isinstance(c.operator, cst.In) and literal_value(left) == "cuda" and isinstance(right, cst.Call)
                and isinstance(right.func, cst.Name) and right.func.value == "str" and len(right.args) == 1
                and isinstance(right.args[0].value, cst.Attribute) and right.args[0].value.attr.value == "device"):
            # `"cuda" in str(self.conv1.weight.device)` (lightning-bolts SwAV; n17: on a CPU
            # machine the arm does not run, all four pass and match)
            return True
        return (isinstance(c.operator, cst.Equal) and isinstance(left, cst.Attribute) and left.attr.value == "type"
                and isinstance(left.value, cst.Attribute) and left.value.attr.value == "device"
                and literal_value(right) == "cuda")
    return False


def _is_available_call(e) -> bool:
    return (isinstance(e, cst.Call) and not e.args
            and (dotted(e.func) or "") in ("torch.cuda.is_available", "cuda.is_available"))


def _under_is_cuda(fn) -> set[int]:
    """ids of nodes in the body of an `if x.is_cuda:` (not its `else`): `mask.cuda()` there
    follows a tensor already on the GPU; on a CPU export it does not run, and on a GPU export the
    graph is on cuda anyway (inst_colorization `if rgb.is_cuda: mask = mask.cuda()`)."""
    out: set[int] = set()
    for n in iter_nodes(fn.node.body):
        if isinstance(n, cst.If) and _is_cuda_test(n.test):
            out.update(id(x) for x in iter_nodes(n.body))
    return out


@register
class HardcodedDevice(Rule):
    code = "EXL301"
    name = "hardcoded-device"
    severity = Severity.ERROR
    summary = "forward moves tensors to a fixed device (.cuda(), .to('cuda'), device='cuda')."

    def check(self, ctx):
        for fn in ctx.model.functions:
            guarded: Optional[set[int]] = None
            for call in fn.calls:
                node = call.node
                m = call.method
                if m == "cuda" and call.receiver_kind not in ("self", "super"):
                    if guarded is None:
                        guarded = _under_is_cuda(fn)
                    if id(node) in guarded:
                        continue
                    ctx.report(
                        node,
                        f"`{snippet(ctx, node)}` hard-codes the GPU in forward: export on a CPU machine fails "
                        "(\"Torch not compiled with CUDA enabled\") and the exported graph is pinned to cuda. "
                        "Use `.to(other.device)` with a tensor the model already has.",
                    )
                    continue
                dev = None
                if m == "to":
                    pos = call.positional()
                    if pos:
                        v = literal_value(pos[0].value)
                        if isinstance(v, str):
                            dev = v
                    kv = call.const_kwarg("device")
                    if isinstance(kv, str):
                        dev = kv
                else:
                    kv = call.const_kwarg("device")
                    if isinstance(kv, str):
                        dev = kv
                    elif call.qualname == "torch.device":
                        v = call.const_arg(0)
                        if isinstance(v, str):
                            dev = v
                if dev is not None and dev.split(":", 1)[0] in _ACCEL:
                    ctx.report(
                        node,
                        f"device {dev!r} is hard-coded in forward (`{snippet(ctx, node)}`): export fails where that "
                        "device is absent and the graph is pinned to it. Use `device=x.device` from an input.",
                    )
        return ()


@register
class FactoryWithoutDevice(Rule):
    code = "EXL302"
    name = "factory-without-device"
    severity = Severity.WARNING  # exports fine on CPU; fails once model and inputs are on a GPU
    summary = "A tensor factory in forward has no device= (the exported program pins it to CPU)."

    def check(self, ctx):
        for fn in ctx.model.functions:
            if not any(c.qualname in FACTORIES and not c.has_kwarg("device") for c in fn.calls):
                continue  # the flow analysis below walks the function: only where it can matter
            ref = _first_tensor_name(fn)
            helper = not fn.is_forward  # a function forward calls: what it returns, its caller places
            ret_calls, ret_names = _returned_calls_and_names(fn) if helper else (set(), set())
            assigns = assignments_in_scope(fn.node)
            moved = _moved_names(fn, assigns, frozenset(ret_names))
            parents = _moved_calls(fn) | _appended_to_moved(fn, moved) | ret_calls
            index_only: Optional[set[int]] = None
            if moved:  # calls anywhere in `name = <expr>` whose name is later moved
                for n, v, _ in assigns:
                    if n in moved:
                        parents.update(id(x) for x in iter_nodes(v) if isinstance(x, cst.Call))
            for call in fn.calls:
                if call.qualname not in FACTORIES or call.has_kwarg("device") or call.has_kwarg("out"):
                    continue
                if any(a.star for a in call.node.args):
                    continue
                if id(call.node) in parents:
                    continue  # torch.arange(n).to(x.device) / .type_as(x): moved right away
                if index_only is None:
                    index_only = _index_only_calls(fn)
                if id(call.node) in index_only:
                    continue  # x[torch.arange(n), idx]: CPU indices index a tensor on any device
                name = fn.assigned_to.get(id(call.node))
                if name is not None and name in moved:
                    continue  # moved later: t = torch.zeros(3); ...; t.to(x.device)
                if call.qualname in ("torch.tensor", "torch.as_tensor", "torch.scalar_tensor"):
                    first = call.node.args[0].value if call.node.args else None
                    if first is not None and literal_value(first) is not MISSING and not isinstance(
                        literal_value(first), (list, tuple)
                    ):
                        continue  # a 0-d Python scalar: type-promoted like a number, device-free
                    if first is not None and call.arg_kinds and _scalar_expr(first) and (
                        call.arg_kinds[0] == SHAPE
                        or (call.arg_kinds[0] == CONST and isinstance(first, (cst.BinaryOperation, cst.UnaryOperation)))
                    ):
                        continue  # torch.tensor(x.size(-1)), torch.tensor((n - 1) / m): also 0-d scalars
                fix = None
                hint = "`device=x.device` (x: an input)"
                if ref is not None:
                    new = call.node.with_changes(
                        args=[
                            *[
                                a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
                                if i == len(call.node.args) - 1
                                else a
                                for i, a in enumerate(call.node.args)
                            ],
                            cst.Arg(
                                value=cst.parse_expression(f"{ref}.device"),
                                keyword=cst.Name("device"),
                                equal=cst.AssignEqual(
                                    whitespace_before=cst.SimpleWhitespace(""),
                                    whitespace_after=cst.SimpleWhitespace(""),
                                ),
                            ),
                        ]
                    )
                    fix = Fix(
                        replacement=ctx.source_of(new),
                        safety=FixSafety.SAFE,
                        description=f"create the tensor on `{ref}`'s device (no change on CPU)",
                    )
                    hint = f"`device={ref}.device`"
                ctx.report(
                    call.node,
                    f"`{call.qualname}(...)` in forward without `device=` creates a CPU tensor whatever device "
                    "the model runs on: exporting (or running) the model on GPU fails with \"Expected all "
                    f"tensors to be on the same device\". Pass {hint}, or use `x.new_zeros(...)` / "
                    "`torch.zeros_like`.",
                    fix=fix,
                )
        return ()


@register
class UnregisteredTensorAttribute(Rule):
    code = "EXL303"
    name = "unregistered-tensor-attribute"
    severity = Severity.ERROR
    summary = "A tensor stored on self in __init__ without register_buffer / nn.Parameter."
    scope = "file"

    def check(self, ctx):
        used = _attrs_read_on_export_path(ctx)
        rebound = _attrs_rebound_on_export_path(ctx)
        for c in ctx.model.classes.values():
            if not c.is_module:
                continue
            for name, fact in c.attrs.items():
                if fact.what != "tensor" or (c.name, name) not in used:
                    continue
                reads = _device_safe_reads(ctx, name, fact.value)
                if reads == "safe":
                    continue
                if (c.name, name) in rebound:
                    # export-path code assigns it anew: a placeholder of a cache that forward refills
                    # (YOLO grid), or re-bound on the input's device (`self._future_mask =
                    # self._future_mask.to(tensor)`, fairseq/esm; bench/labels/probes_sweep5/)
                    continue
                node = fact.node
                tgt = None
                if isinstance(node, cst.Assign):
                    for t in node.targets:
                        if isinstance(t.target, cst.Attribute) and t.target.attr.value == name:
                            tgt = t.target
                elif isinstance(node, cst.AnnAssign):
                    tgt = node.target
                fix = None
                if isinstance(node, cst.Assign) and tgt is not None and isinstance(tgt.value, cst.Name):
                    fix = Fix(
                        replacement=f'{tgt.value.value}.register_buffer("{name}", {ctx.source_of(node.value)}, persistent=False)',
                        safety=FixSafety.UNSAFE,
                        description="a non-persistent buffer moves with .to() and stays out of state_dict",
                    )
                init = c.methods.get("__init__")
                moved = reads == "moved"
                ctx.report(
                    node if fix is not None else (tgt or node),
                    f"`self.{name}` holds a tensor that is not a registered buffer or parameter: `.to(device)` "
                    "does not move it and torch.export lifts it as a constant on its creation device"
                    + (" (forward moves it to the input's device at each read, so eager and the ONNX graphs "
                       "run anywhere, but the exported program moved to another device fails)" if moved else "")
                    + f'. Use `self.register_buffer("{name}", ..., persistent=False)`.',
                    exporters=("export-strict", "export-nonstrict") if moved else None,
                    fix=fix,
                    anchor=(init, ctx.model.function_indent.get(id(init))) if init is not None else None,
                )
        return ()


_ARITH = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)


def _device_safe_reads(ctx, name: str, value) -> Optional[str]:
    """How export-path code of the class reads the unregistered tensor ``self.<name>``: ``"safe"``
    when every read works beside a tensor on any device, ``"moved"`` when every read is safe or
    moved to an input's device (``self._idx.to(x.device)``), else None.

    Safe reads (measured with ``meta`` standing in for another device, eager and both torch.export
    programs moved there pass; the same attribute in arithmetic fails all three):

    - an index of a subscript (``heat[:, self.flip_idx, :]``, R-INDEXONLY, probe r27): advanced
      indexing takes an index tensor on the CPU for a tensor on any device; so does a row of one
      taken with literal ints as that index, read or written (``r[:, self.tril[0], self.tril[1]]``,
      S-INDEXROWS, probe s7);
    - an operand of arithmetic when the value is a 0-d tensor of a number literal
      (``self.scale = torch.tensor(0.0)``, ``input * self.scale``, Q-SCALAR0D, probe q3).

    A read moved to an input's device at each use (R-TOINPUT, probe r30) runs anywhere in eager
    and in the ONNX graphs (which hold no device); only the torch.export program, which keeps the
    constant on its creation device, fails when moved."""
    scalar = _scalar_literal(ctx, value)
    flat = _flat_literal(ctx, value)
    read = moved = False
    for fn in ctx.model.functions:
        # (every class's export-path code: a subclass reads what a base's __init__ set)
        if fn.cls is None or fn.node.name.value == "__init__" or name not in fn.self_attr_reads:
            continue
        # one walk: a parent comes before its children in pre-order
        operands: set[int] = set()
        indexes: set[int] = set()
        to_input: set[int] = set()
        elements: set[int] = set()
        operand_names: set[str] = set()
        for n in iter_nodes(fn.node):
            if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, _ARITH):
                if scalar:
                    operands.add(id(n.left))
                    operands.add(id(n.right))
                elif flat:
                    elements.add(id(n.left))
                    elements.add(id(n.right))
            elif isinstance(n, cst.Subscript):
                if (id(n) in elements and len(n.slice) == 1 and isinstance(n.slice[0].slice, cst.Index)
                        and isinstance(n.slice[0].slice.value, (cst.Name, cst.Integer))):
                    # `self.loss_weights[i] * loss`: one element of a 1-D tensor is a 0-d CPU tensor,
                    # which arithmetic takes beside a tensor on any device (ptlflow FlowNet's
                    # MultiScale loss, T-ELEMENT0D, probe t29; the 1-D tensor itself fails: t29c)
                    operands.add(id(n.value))
                if id(n) in indexes and _int_literal_rows(n):
                    # `r[:, self.tril_idcs[0], self.tril_idcs[1]]`: a row of the index tensor (taken
                    # with literal ints) is itself an index tensor on the CPU (deepfilternet MfWf,
                    # S-INDEXROWS, probe s7)
                    indexes.add(id(n.value))
                for el in n.slice:
                    if isinstance(el.slice, cst.Index):
                        indexes.add(id(el.slice.value))
            elif (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "to"
                    and len(n.args) == 1 and not n.args[0].star
                    and (n.args[0].keyword is None or n.args[0].keyword.value == "device")
                    and isinstance(n.args[0].value, cst.Attribute) and n.args[0].value.attr.value == "device"):
                to_input.add(id(n.func.value))
            elif isinstance(n, cst.BaseCompoundStatement):
                operand_names = set()  # (a header's `.to(n)` is not the previous line's)
            elif isinstance(n, cst.SimpleStatementLine):
                operand_names = {x.value for b in iter_nodes(n) if isinstance(b, cst.BinaryOperation)
                                 and isinstance(b.operator, _ARITH) for x in (b.left, b.right) if isinstance(x, cst.Name)}
            elif (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "to"
                    and len(n.args) == 1 and not n.args[0].star and n.args[0].keyword is None
                    and isinstance(n.args[0].value, cst.Name)
                    and (fn.kind(n.args[0].value) in TENSORISH or n.args[0].value.value in operand_names)):
                # (or a name that the same statement uses as an operand of arithmetic, `x = (x -
                # self.mean.to(x)) / self.std.to(x)`: a dtype or a device has no arithmetic, and
                # `.to()` takes no number, so it holds a tensor)
                # `self.default_mean.to(x)` with `x` a tensor: the device (and dtype) of `x`, as
                # `.to(x.device)` (U-TOTENSOR, probe prec20 u15: the same three results as r30);
                # a name of no known kind (`.to(dtype)`, `.to(device)`) stays unmoved
                to_input.add(id(n.func.value))
            elif (isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
                    and n.func.value in ctx.model.module_functions):
                for i, a in enumerate(n.args):
                    v = a.value
                    if (not a.star and isinstance(v, cst.Attribute) and v.attr.value == name
                            and isinstance(v.value, cst.Name) and v.value.value == fn.self_name
                            and _callee_moves(ctx, ctx.model.module_functions[n.func.value], i, a)):
                        to_input.add(id(v))
            elif (isinstance(n, cst.Attribute) and n.attr.value == name and isinstance(n.value, cst.Name)
                    and n.value.value == fn.self_name):
                if id(n) in to_input:
                    moved = True
                elif id(n) not in operands and id(n) not in indexes:
                    return None
                read = True
    if not read:
        return None
    return "moved" if moved else "safe"


def _callee_moves(ctx, callee: cst.FunctionDef, pos: int, arg: cst.Arg) -> bool:
    """Whether a function of this file first reads the parameter that ``arg`` binds as
    ``p = p.to(<tensor>)...`` (rebinding it moved to a tensor's device), or reads it only as
    ``p.to(<tensor>)``: pyiqa's ``calculate_niqe(x, ..., self.mu_pris_param, ...)`` whose first use is
    ``mu_pris_param = mu_pris_param.to(img).repeat(...)`` (U-TOTENSOR through a function, sample U 31)."""
    params = list(callee.params.posonly_params) + list(callee.params.params)
    if arg.keyword is not None:
        p = next((q for q in params + list(callee.params.kwonly_params) if q.name.value == arg.keyword.value), None)
    else:
        p = params[pos] if pos < len(params) else None
    if p is None:
        return False
    pname = p.name.value
    flow = next((f for f in ctx.model.functions if f.node is callee), None)
    if flow is None:
        return False
    targets: set[int] = set()
    moved: dict[int, cst.CSTNode] = {}  # id of the receiver Name -> its statement's target set
    reads: list[cst.Name] = []
    for n in iter_nodes(callee.body):
        if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            for t in ([t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]):
                targets.update(id(x) for x in iter_nodes(t) if isinstance(x, cst.Name))
        elif (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "to"
                and isinstance(n.func.value, cst.Name) and n.func.value.value == pname
                and len(n.args) == 1 and not n.args[0].star and n.args[0].keyword is None
                and isinstance(n.args[0].value, cst.Name) and flow.kind(n.args[0].value) in TENSORISH):
            moved[id(n.func.value)] = n
        elif isinstance(n, cst.Name) and n.value == pname and id(n) not in targets:
            reads.append(n)
    if not reads or any(id(r) not in moved for r in reads[:1]):
        return False
    if all(id(r) in moved for r in reads):
        return True
    # the first read rebinds the parameter: `p = p.to(img)...`, a statement of the body itself
    # (not under an `if`: later reads are of the moved value)
    top = [sm for line in callee.body.body if isinstance(line, cst.SimpleStatementLine) for sm in line.body]
    for st in top:
        if (isinstance(st, cst.Assign) and len(st.targets) == 1 and isinstance(st.targets[0].target, cst.Name)
                and st.targets[0].target.value == pname
                and any(x is reads[0] for x in iter_nodes(st.value))):
            return True
    return False


def _int_literal_rows(n: cst.Subscript) -> bool:
    """``t[0]`` / ``t[1, -1]``: every index of the subscript an int literal (no slice)."""
    for el in n.slice:
        v = el.slice.value if isinstance(el.slice, cst.Index) else None
        if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus):
            v = v.expression
        if not isinstance(v, cst.Integer):
            return False
    return True


def _flat_literal(ctx, value) -> bool:
    """``torch.tensor([...])`` / ``torch.FloatTensor([... for s in ...])``: a 1-D tensor of a list
    display or comprehension whose items are no lists or tuples."""
    if not (isinstance(value, cst.Call) and len(value.args) == 1 and value.args[0].keyword is None
            and not value.args[0].star):
        return False
    if (ctx.model.imports.resolve(value.func) or "") not in ("torch.tensor", "torch.FloatTensor",
                                                              "torch.LongTensor", "torch.Tensor"):
        return False
    v = value.args[0].value
    if isinstance(v, cst.ListComp):
        return not isinstance(v.elt, (cst.List, cst.Tuple, cst.ListComp))
    return (isinstance(v, cst.List) and bool(v.elements)
            and not any(isinstance(e.value, (cst.List, cst.Tuple, cst.ListComp)) or isinstance(e, cst.StarredElement)
                        for e in v.elements))


def _scalar_literal(ctx, value) -> bool:
    """``torch.tensor(<number literal>)``: a 0-d tensor."""
    if not (isinstance(value, cst.Call) and len(value.args) >= 1 and value.args[0].keyword is None
            and not value.args[0].star):
        return False
    if (ctx.model.imports.resolve(value.func) or "") != "torch.tensor":
        return False
    v = literal_value(value.args[0].value)
    return not isinstance(v, bool) and isinstance(v, (int, float))


def _attrs_rebound_on_export_path(ctx) -> set[tuple[str, str]]:
    """(class, attribute) pairs that export-path code assigns (`self.grid = make_grid(nx, ny)`):
    the tensor `__init__` stored is a placeholder of a cache that forward refills (the YOLO grid
    rebuilt when the feature size changes exports with all four exporters, measured); the device
    of what forward assigns is EXL302's concern."""
    out: set[tuple[str, str]] = set()
    for fn in ctx.model.functions:
        if fn.cls is None:
            continue
        for w in fn.state_writes:
            if w.how == "assign" and w.target.startswith("self.") and "[" not in w.target and "." not in w.target[5:]:
                out.add((fn.cls.name, w.target[5:]))
    return out


def _attrs_read_on_export_path(ctx) -> set[tuple[str, str]]:
    """(class, attribute) pairs read as self.<attribute> by export-path code."""
    out: set[tuple[str, str]] = set()
    for fn in ctx.model.functions:
        if fn.cls is None:
            continue
        stack, seen = [fn.cls], set()
        while stack:  # an attribute set in a base class's __init__ and read here
            c = stack.pop()
            if c.name in seen:
                continue
            seen.add(c.name)
            out.update((c.name, a) for a in fn.self_attr_reads)
            stack.extend(c.local_bases)
    return out


@register
class AutocastInForward(Rule):
    code = "EXL304"
    name = "autocast-or-dtype-mixing-in-forward"
    severity = Severity.WARNING
    exporters = ("onnx-legacy", "onnx-dynamo")
    summary = "torch.autocast or .half()/.bfloat16() inside forward."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ""
                if q in ("torch.autocast", "torch.cuda.amp.autocast", "torch.amp.autocast", "torch.cpu.amp.autocast"):
                    enabled = call.const_kwarg("enabled", True)
                    if enabled is False:
                        continue
                    if call.kwarg("enabled") is not None and literal_value(call.kwarg("enabled").value) is MISSING:
                        continue  # enabled=use_amp (e.g. from the weights' dtype): off for a float32 export
                    ctx.report(
                        call.node,
                        f"`{q}` inside forward: autocast is a runtime mode, so the exported graph has the dtypes "
                        "of the device and settings at export time. Cast explicitly (`.to(torch.float16)`) where "
                        "you need a dtype.",
                    )
                elif call.receiver_kind in TENSORISH and call.method in ("half", "bfloat16") and not any(
                    "dtype" in ctx.source_of(c) for c in call.conds
                ):
                    ctx.report(
                        call.node,
                        f"`.{call.method}()` in forward mixes dtypes inside the graph: CPU export and ONNX Runtime "
                        "CPU kernels may not support them. Prefer casting the whole model before export.",
                    )
        return ()
