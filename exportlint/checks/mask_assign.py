"""EXL208: assignment through a boolean mask combined with another index (``r[mask, 0] = v``)
under the legacy (TorchScript) ONNX exporter.

Measured with torch 2.13 (opsets 11 and 17): the export succeeds but the ONNX model fails in
onnxruntime ('Non-zero status code returned while running Reshape node ... ReshapeHelper');
``r[mask] = v`` alone exports and runs, and torch.export / onnx-dynamo handle both.
"""

from __future__ import annotations

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.kinds import CONST, MASK, TENSORISH


@register
class MaskWithIndexAssign(Rule):
    code = "EXL208"
    name = "mask-and-index-assign"
    severity = Severity.ERROR
    exporters = ("onnx-legacy",)
    summary = "Assignment through a boolean mask plus another index (r[mask, 0] = v): invalid legacy ONNX."

    def check(self, ctx):
        for fn in ctx.model.functions:
            for st in fn.statements():  # (an assignment is a statement)
                if type(st) is not cst.Assign:  # (exact type: cheaper than the ABC check)
                    continue
                for t in st.targets:
                    sub = t.target
                    if not isinstance(sub, cst.Subscript) or fn.kind(sub.value) not in TENSORISH:
                        continue
                    idx = [el.slice.value for el in sub.slice if isinstance(el.slice, cst.Index)]
                    if any(isinstance(v, cst.Ellipsis) for v in idx):
                        continue  # `...` beside the mask: not measured
                    if len(idx) < 2 or len(idx) != len(sub.slice):
                        continue  # a slice (`:`) beside the mask is another case (not measured)
                    kinds = [fn.kind(v) for v in idx]
                    if MASK in kinds and any(k == CONST or (k != MASK and k in TENSORISH) for k in kinds):
                        ctx.report(
                            sub,
                            f"assignment through a boolean mask and another index (`{snippet(ctx, sub)}`): the "
                            "legacy ONNX exporter writes a model that onnxruntime rejects ('Non-zero status code "
                            "returned while running Reshape node'). Write the full column with `torch.where` "
                            "(`r[:, 0] = torch.where(mask, R, r[:, 0])`), or export with torch.export / onnx-dynamo.",
                        )
        return ()
