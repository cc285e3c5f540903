"""EXL213: `.data` of a tensor on the export path (read, or written: peft's merge/unmerge).
EXL145: `.data_ptr()` of a tensor on the export path.

Measured with torch 2.13.0 (bench/labels/probes_prec6/p2, p3, p4; the messages are quoted in
rules/EXL213.md): torch.export records `t.data` as a lifted constant, a fake tensor of the trace:
non-strict fails ('We found a fake tensor in the exported program constant's list'), strict exports
a program that returns a fake tensor (a read) or fails when run (`w.data = ...`: "Can't call metadata
mutating ops on non-Fake Tensor inputs"), onnx-dynamo fails (or crashes). The legacy tracer reads a
parameter's or buffer's `.data` as that weight (it exports and matches; a `.data` rewrite is done at
trace time and baked), but records the `.data` of an input or of an intermediate as a constant.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.kinds import TENSOR, UNKNOWN
from exportlint.semantics.model import iter_nodes

_TORCH_EXPORT = ("export-strict", "export-nonstrict", "onnx-dynamo")


def _is_weight(fn, e: cst.BaseExpression) -> bool:
    """Not known to be a tensor computed in the function: a parameter or buffer (`self.w`,
    `layer.weight`, `self.get_base_layer().weight`), a local alias of one (`w = self.weight`), a
    parameter of the function (it may be a buffer: `ema_inplace(self.cluster_size, ...)`). Only a
    local name bound to computed values, or a call's result, is a computed tensor (the legacy tracer
    records its `.data` as a constant)."""
    if isinstance(e, cst.Call):
        return False
    if isinstance(e, cst.Name):
        binds = [n.value for n in fn.nodes() if isinstance(n, cst.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0].target, cst.Name) and n.targets[0].target.value == e.value]
        return not binds or any(isinstance(v, (cst.Attribute, cst.Name)) for v in binds)
    return True


def _tensorish(fn, n: cst.Attribute) -> bool:
    """`t.data` of a tensor the analysis knows (an input, a torch result, a parameter or buffer)."""
    return fn.kind(n.value) == TENSOR


def _bare_param(fn, e: cst.BaseExpression) -> bool:
    """A parameter of the function, read as is (`packed.data` of `forward(self, packed)`)."""
    if not isinstance(e, cst.Name):
        return False
    p = fn.node.params
    names = {q.name.value for q in list(p.posonly_params) + list(p.params) + list(p.kwonly_params)}
    return e.value in names


#: fields of ``torch.nn.utils.rnn.PackedSequence`` (a NamedTuple whose ``.data`` is its packed
#: tensor) that no tensor has: a receiver read with one of them holds a PackedSequence
_PACKED_FIELDS = frozenset({"batch_sizes", "sorted_indices", "unsorted_indices"})


def _packed_sequences(fn) -> frozenset:
    """The names and chains of the function read with a field only a PackedSequence has
    (``char_reps.batch_sizes``, stanza's ``PackedSequence(char_reps.data * w,
    char_reps.batch_sizes)``): their ``.data`` is that NamedTuple's field, not ``Tensor.data``
    (P-PACKEDDATA). One walk per function, kept on it."""
    got = fn.__dict__.get("_packed_sequences")
    if got is None:
        got = frozenset(c for n in fn.nodes()
                        if type(n) is cst.Attribute and n.attr.value in _PACKED_FIELDS
                        for c in (_chain(n.value),) if c is not None)
        fn.__dict__["_packed_sequences"] = got
    return got


def data_rewrite(n: cst.CSTNode) -> tuple[Optional[cst.Attribute], tuple]:
    """(the `t.data` rewritten, the values written) when node `n` rewrites a `.data`:
    `t.data = new`, `t.data[:k] = new`, `t.data += d`, `t.data.copy_(new)`, `t.data.sub_(d)`;
    else (None, ())."""
    tgt, new = None, ()
    if isinstance(n, cst.Assign) and len(n.targets) == 1:
        tgt, new = n.targets[0].target, (n.value,)
    elif isinstance(n, cst.AugAssign):
        tgt, new = n.target, (n.value,)
    elif (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
          and n.func.attr.value.endswith("_") and not n.func.attr.value.startswith("_")
          and isinstance(n.func.value, cst.Attribute) and n.func.value.attr.value == "data"):
        # `w.data.copy_(new)`, `w.data.sub_(d)`
        tgt, new = n.func.value, tuple(a.value for a in n.args)
    if isinstance(tgt, cst.Subscript):
        tgt = tgt.value  # `w.data[:n] = new`
    if isinstance(tgt, cst.Attribute) and tgt.attr.value == "data":
        return tgt, new
    return None, ()


def reported_rewrite(fn, n: cst.CSTNode) -> Optional[cst.Attribute]:
    """The `t.data` that node `n` rewrites when EXL213 reports it: the weight is known a tensor,
    or a tensor is written into its `.data` (`base_layer.weight.data = base_layer.weight.data - d`,
    `w.data -= self.get_delta_weight(name)` where that method returns a torch result)."""
    tgt, new = data_rewrite(n)
    if tgt is not None and (_tensorish(fn, tgt) or any(tensor_valued(fn, v) for v in new)):
        return tgt
    return None


#: tensor methods whose result is a tensor of the receiver's values
_SAME_TENSOR_METHODS = frozenset({"to", "detach", "clone", "contiguous", "float", "half", "double", "bfloat16",
                                  "view", "reshape", "t", "transpose", "permute", "type_as", "view_as"})


def tensor_valued(fn, e: cst.BaseExpression, depth: int = 0) -> bool:
    """A tensor by the flow's kinds, or provably one through the function's own names and the
    class's methods in this file: `d = self.get_delta_weight(a)` whose every `return` is a torch
    result (the flow gives an in-file method's call no kind); `a - d`, `d.to(dtype)` of such a
    value. Nothing is guessed: a value of unknown kind anywhere on the way is not a tensor."""
    if fn.kind(e) == TENSOR:
        return True
    if depth > 4:
        return False
    if isinstance(e, cst.BinaryOperation):
        return tensor_valued(fn, e.left, depth + 1) or tensor_valued(fn, e.right, depth + 1)
    if isinstance(e, cst.Name):
        binds = [n.value for n in fn.nodes() if isinstance(n, cst.Assign) and len(n.targets) == 1
                 and isinstance(n.targets[0].target, cst.Name) and n.targets[0].target.value == e.value]
        other = [n for n in fn.nodes() if isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr))
                 and isinstance(getattr(n, "target", None), cst.Name) and n.target.value == e.value]
        return bool(binds) and not other and all(tensor_valued(fn, v, depth + 1) for v in binds)
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute):
        recv, meth = e.func.value, e.func.attr.value
        if meth in _SAME_TENSOR_METHODS:
            return tensor_valued(fn, recv, depth + 1)
        if isinstance(recv, cst.Name) and fn.self_name and recv.value == fn.self_name and fn.cls is not None:
            r = fn.cls.find_method(meth)
            callee = fn.model.facts_for(r[1]) if r is not None else None
            if callee is None:
                return False
            rets = [n.value for n in callee.nodes() if isinstance(n, cst.Return)]
            return bool(rets) and all(v is not None and tensor_valued(callee, v, depth + 1) for v in rets)
    return False


def rewrites_data(fn) -> bool:
    """Whether function `fn` (its facts) has a `.data` rewrite that EXL213 reports."""
    got = fn.__dict__.get("_rewrites_data")
    if got is None:
        got = False
        # a rewrite is an Assign, AugAssign or Call whose target is an Attribute `.data` of the
        # function: with no such Attribute among its nodes (most functions: the walk is shared
        # with EXL213, ``fn.nodes()``), none; else only those three node types are asked (exact
        # types: an ``isinstance`` per node through the ABC machinery was most of the time)
        if _data_attr_or_del(fn)[0]:
            line, kinds = cst.SimpleStatementLine, (cst.Assign, cst.AugAssign, cst.Call)
            for st in fn.statements():
                if type(st) is line and any(
                        type(n) in kinds and reported_rewrite(fn, n) is not None for n in iter_nodes(st)):
                    got = True
                    break
        fn.__dict__["_rewrites_data"] = got
    return got


def _chain(e: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` as text for a chain of names and attributes, else None."""
    if isinstance(e, cst.Name):
        return e.value
    if isinstance(e, cst.Attribute):
        base = _chain(e.value)
        return None if base is None else f"{base}.{e.attr.value}"
    return None


def unseen_weight_rewrite(fn, n: cst.CSTNode) -> bool:
    """Node `n` rewrites a weight in place in a way EXL213 cannot prove a tensor's (the owner's
    kind is unknown: `w = self.get_base_layer().weight`): `w.data.copy_(new)` (any public in-place
    method `*_` on `.data`), `w.data = w.data - d` (the same `.data` read back), or a parameter
    unregistered from another object and replaced (`del layer.weight`, then `layer.weight = new` or
    `layer.register_parameter(...)` in the function). `self.data = ...` (a plain attribute named
    `data`) is not one."""
    if isinstance(n, cst.Del):
        targets = [e.value for e in n.target.elements] if isinstance(n.target, cst.Tuple) else [n.target]
        for t in targets:
            if not (isinstance(t, cst.Attribute) and not _is_self(fn, t.value)):
                continue
            owner, name = _chain(t.value), t.attr.value
            if owner is None:
                continue
            for m in fn.nodes():
                if (isinstance(m, cst.Assign) and any(_chain(x.target) == f"{owner}.{name}" for x in m.targets)):
                    return True
                if (isinstance(m, cst.Call) and isinstance(m.func, cst.Attribute)
                        and m.func.attr.value == "register_parameter" and _chain(m.func.value) == owner):
                    return True
        return False
    tgt, new = data_rewrite(n)
    if tgt is None or _is_self(fn, tgt.value) or fn.kind(tgt.value) not in (TENSOR, UNKNOWN):
        return False
    if isinstance(n, cst.Call):
        return True  # `w.data.copy_(new)`: a tensor method on `.data`
    own = _chain(tgt)
    return own is not None and any(isinstance(m, cst.Attribute) and _chain(m) == own
                                   for v in new for m in iter_nodes(v))


def _is_self(fn, e: cst.BaseExpression) -> bool:
    return isinstance(e, cst.Name) and fn.self_name is not None and e.value == fn.self_name


def rewrites_weights(fn) -> bool:
    """Whether function `fn` rewrites a weight in place: a `.data` rewrite EXL213 reports
    (``rewrites_data``) or one it cannot see (``unseen_weight_rewrite``)."""
    got = fn.__dict__.get("_rewrites_weights")
    if got is None:
        got = rewrites_data(fn)
        if not got and any(_data_attr_or_del(fn)):
            got = any(unseen_weight_rewrite(fn, n) for n in fn.nodes())
        fn.__dict__["_rewrites_weights"] = got
    return got


def _data_attr_or_del(fn) -> tuple[bool, bool]:
    """(an Attribute `.data` among the function's nodes, a `del` statement among them): one walk
    of ``fn.nodes()`` for EXL213, ``rewrites_data`` and ``rewrites_weights``, which each asked
    one of these with a walk of its own (exact types: libcst's concrete nodes have no subclasses,
    and an ``isinstance`` through the ABC machinery per node was most of a walk's time)."""
    got = fn.__dict__.get("_data_attr_or_del")
    if got is None:
        attribute, delete = cst.Attribute, cst.Del
        has_data = has_del = False
        for n in fn.nodes():
            t = type(n)
            if t is attribute:
                if not has_data and n.attr.value == "data":
                    has_data = True
                    if has_del:
                        break
            elif t is delete:
                has_del = True
                if has_data:
                    break
        got = fn.__dict__["_data_attr_or_del"] = (has_data, has_del)
    return got


@register
class TensorDataInForward(Rule):
    code = "EXL213"
    name = "tensor-data-in-forward"
    severity = Severity.ERROR
    exporters = _TORCH_EXPORT + ("onnx-legacy",)
    summary = "`.data` of a tensor read or rewritten on the export path."

    def check(self, ctx):
        if ".data" not in ctx.text:
            return ()
        line = cst.SimpleStatementLine
        for fn in ctx.model.functions:
            # every finding is at (or beside) an Attribute `.data` node of the function: none, no
            # statement to walk. (``fn.nodes()`` is walked once and shared with other rules, the
            # answer too: ``_data_attr_or_del``)
            if not _data_attr_or_del(fn)[0]:
                continue
            for st in fn.statements():
                if type(st) is line:
                    self._statement(ctx, fn, st)
        return ()

    def _statement(self, ctx, fn, st: cst.SimpleStatementLine) -> None:
        """One finding per statement: its rewrite of a `.data` if any, else its first `.data` read."""
        nodes = list(iter_nodes(st))
        for n in nodes:
            tgt = reported_rewrite(fn, n)
            if tgt is not None:
                weight = _is_weight(fn, tgt.value)
                ctx.report(
                    tgt,
                    f"`{snippet(ctx, tgt)}` is rewritten on the export path: torch.export records `.data` as a "
                    "constant of the trace, so non-strict fails ('We found a fake tensor in the exported "
                    "program constant's list'), strict exports a program that fails when run (\"Can't call "
                    "metadata mutating ops on non-Fake Tensor inputs\") and onnx-dynamo fails"
                    + (" (the legacy tracer does the rewrite of a weight once, at export time)" if weight else
                       "; the legacy tracer drops an in-place write through `.data` of a computed tensor "
                       "(wrong numbers)")
                    + ". Rewrite weights before exporting (merge adapters first), and write tensors "
                    "without `.data`.",
                    exporters=_TORCH_EXPORT if weight else _TORCH_EXPORT + ("onnx-legacy",),
                )
                return
        for n in nodes:
            if not (isinstance(n, cst.Attribute) and n.attr.value == "data"):
                continue
            if not _tensorish(fn, n) or _bare_param(fn, n.value):
                # unknown stays unknown: a parameter is a tensor by default only, and `.data` is
                # also a field of non-tensors (`PackedSequence.data`, a graph batch)
                continue
            if _chain(n.value) in _packed_sequences(fn):
                continue  # a PackedSequence (read with `.batch_sizes` here): its packed tensor
            weight = _is_weight(fn, n.value)
            ctx.report(
                n,
                f"`{snippet(ctx, n)}` on the export path: torch.export records `.data` as a constant of the "
                "trace, so non-strict fails ('We found a fake tensor in the exported program constant's "
                "list'), strict exports a program that returns fake tensors and onnx-dynamo fails"
                + ("" if weight else "; the legacy tracer records the value as a constant (wrong for other "
                   "inputs)")
                + ". Use the tensor itself, or `.detach()`.",
                exporters=_TORCH_EXPORT if weight else _TORCH_EXPORT + ("onnx-legacy",),
            )
            return


_PTR_ALL = _TORCH_EXPORT
_PTR_NONSTRICT = ("export-nonstrict",)


def _ptr_operands(fn) -> set[int]:
    """ids of the expressions that are an operand of arithmetic or a comparison in the function
    (`x.data_ptr() % 16`, `p == q.data_ptr()`); parentheses are looked through."""
    got = fn.__dict__.get("_ptr_operands")
    if got is None:
        got = set()
        for n in fn.nodes():
            if isinstance(n, cst.BinaryOperation):
                ops = (n.left, n.right)
            elif isinstance(n, cst.Comparison):
                ops = (n.left,) + tuple(c.comparator for c in n.comparisons)
            else:
                continue
            got.update(id(o) for o in ops)
        fn.__dict__["_ptr_operands"] = got
    return got


@register
class DataPtrInForward(Rule):
    code = "EXL145"
    name = "data-ptr-in-forward"
    severity = Severity.ERROR
    exporters = _PTR_ALL
    summary = "`.data_ptr()` of a tensor on the export path: fake tensors have no storage."

    def check(self, ctx):
        if "data_ptr" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            operands = None
            for call in fn.calls:
                if call.method != "data_ptr" or call.node.args:
                    continue
                func = call.node.func
                if not isinstance(func, cst.Attribute):
                    continue
                recv = func.value
                storage = (isinstance(recv, cst.Call) and isinstance(recv.func, cst.Attribute)
                           and recv.func.attr.value in ("untyped_storage", "storage") and not recv.args)
                tensor = fn.kind(recv.func.value if storage else recv) == TENSOR
                if not tensor:
                    continue  # unknown stays unknown (`data_ptr` of a non-tensor: a ctypes buffer, an array)
                if operands is None:
                    operands = _ptr_operands(fn)
                computed = storage or id(call.node) in operands
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` on the export path: torch.export traces with fake tensors, which "
                    "have no storage, so non-strict export fails ('Cannot access data pointer of Tensor (e.g. "
                    "FakeTensor, FunctionalTensor)')"
                    + ("; strict export and onnx-dynamo fail too, since the pointer is computed with or the storage "
                       "is asked for ('Observed exception' / 'Unsupported method call')" if computed else
                       "; strict export and onnx-dynamo skip an unused pointer")
                    + " (measured, torch 2.13; the legacy tracer reads the real pointer once and bakes any branch on "
                    "it). Drop the check on the export path (`if not torch.compiler.is_compiling():`), or compare "
                    "strides / `is_contiguous()` instead of addresses.",
                    exporters=_PTR_ALL if computed else _PTR_NONSTRICT,
                )
        return ()
