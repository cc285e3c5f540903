"""EXL213: `.data` of a tensor on the export path (read, or written: peft's merge/unmerge).

Measured with torch 2.13.0 (bench/labels/probes_prec6/p2, p3, p4; the messages are quoted in
rules/EXL213.md): torch.export records `t.data` as a lifted constant, a fake tensor of the trace:
non-strict fails ('We found a fake tensor in the exported program constant's list'), strict exports
a program that returns a fake tensor (a read) or fails when run (`w.data = ...`: "Can't call metadata
mutating ops on non-Fake Tensor inputs"), onnx-dynamo fails (or crashes). The legacy tracer reads a
parameter's or buffer's `.data` as that weight (it exports and matches; a `.data` rewrite is done at
trace time and baked), but records the `.data` of an input or of an intermediate as a constant.
"""

from __future__ import annotations

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.kinds import TENSOR
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


@register
class TensorDataInForward(Rule):
    code = "EXL213"
    name = "tensor-data-in-forward"
    severity = Severity.ERROR
    exporters = _TORCH_EXPORT + ("onnx-legacy",)
    summary = "`.data` of a tensor read or rewritten on the export path."

    def check(self, ctx):
        attribute, line = cst.Attribute, cst.SimpleStatementLine
        for fn in ctx.model.functions:
            # every finding is at (or beside) an Attribute `.data` node of the function: none, no
            # statement to walk. (``fn.nodes()`` is walked once and shared with other rules; exact
            # types: libcst's concrete nodes have no subclasses, and ``isinstance`` against them
            # goes through the ABC machinery, which per node of every statement was most of this
            # rule's time on timm)
            if not any(type(n) is attribute and n.attr.value == "data" for n in fn.nodes()):
                continue
            for st in fn.statements():
                if type(st) is line:
                    self._statement(ctx, fn, st)
        return ()

    def _statement(self, ctx, fn, st: cst.SimpleStatementLine) -> None:
        """One finding per statement: its rewrite of a `.data` if any, else its first `.data` read."""
        nodes = list(iter_nodes(st))
        for n in nodes:
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
            if (isinstance(tgt, cst.Attribute) and tgt.attr.value == "data"
                    and (_tensorish(fn, tgt) or any(fn.kind(v) == TENSOR for v in new))):
                # the weight is known a tensor, or a tensor is written into its `.data`
                # (`base_layer.weight.data = base_layer.weight.data - delta_weight`)
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
