"""EXL210: `.data` of a tensor on the export path (read, or written: peft's merge/unmerge).

Measured with torch 2.13.0 (bench/labels/probes_prec6/p2, p3, p4; the messages are quoted in
rules/EXL210.md): torch.export records `t.data` as a lifted constant, a fake tensor of the trace:
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
    """A parameter or buffer: `self.w`, `self.sub.weight`, `layer.weight`, `self.get_base_layer().weight`
    (an attribute of an object, never a local tensor)."""
    if not isinstance(e, cst.Attribute):
        return False
    if fn.self_name is not None and isinstance(e.value, cst.Name) and e.value.value == fn.self_name:
        fact = fn.cls.find_attr(e.attr.value) if fn.cls is not None else None
        return fact is not None and fact.what in ("buffer", "parameter")
    return True  # `<module>.weight`: an attribute of a submodule or layer object


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
    code = "EXL210"
    name = "tensor-data-in-forward"
    severity = Severity.ERROR
    exporters = _TORCH_EXPORT + ("onnx-legacy",)
    summary = "`.data` of a tensor read or rewritten on the export path."

    def check(self, ctx):
        for fn in ctx.model.functions:
            written: set[int] = set()
            covered: set[int] = set()  # other `.data` of a statement that rewrites one: reported once
            for n in fn.nodes():
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
                if (isinstance(tgt, cst.Attribute) and tgt.attr.value == "data"
                        and (_tensorish(fn, tgt) or any(fn.kind(v) == TENSOR for v in new))):
                    # the weight is known a tensor, or a tensor is written into its `.data`
                    # (`base_layer.weight.data = base_layer.weight.data - delta_weight`)
                    written.add(id(tgt))
                    covered.update(id(x) for x in iter_nodes(n) if x is not tgt)
            for n in fn.nodes():
                if not (isinstance(n, cst.Attribute) and n.attr.value == "data") or id(n) in covered:
                    continue
                if id(n) not in written and (not _tensorish(fn, n) or _bare_param(fn, n.value)):
                    # unknown stays unknown: a parameter is a tensor by default only, and `.data` is
                    # also a field of non-tensors (`PackedSequence.data`, a graph batch)
                    continue
                weight = _is_weight(fn, n.value)
                if id(n) in written:
                    ctx.report(
                        n,
                        f"`{snippet(ctx, n)}` is rewritten on the export path: torch.export records `.data` as a "
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
                else:
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
        return ()
