"""EXL206: ``torch.sym_min`` / ``torch.sym_max`` in forward under the legacy (TorchScript) exporter.

Measured with torch 2.13: the legacy tracer hands sizes to Python as 0-d tensors, and
``torch.sym_min(flat.size(0), 6)`` asserts on them ('AssertionError: expected (<class
'numpy.integer'>, <class 'numpy.floating'>, <class 'int'>, <class 'float'>), got <class
'torch.Tensor'>'), with static and dynamic axes alike; torch.export and onnx-dynamo export it.
"""

from __future__ import annotations

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity

_SYM = frozenset({"torch.sym_min", "torch.sym_max"})


@register
class SymMinMaxUnderTracing(Rule):
    code = "EXL206"
    name = "sym-min-max-legacy"
    severity = Severity.ERROR
    exporters = ("onnx-legacy",)
    summary = "torch.sym_min / torch.sym_max in forward: the legacy ONNX exporter fails on them."

    def check(self, ctx):
        if "sym_m" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ""
                if q in _SYM:
                    ctx.report(
                        call.node,
                        f"`{snippet(ctx, call.node)}`: the legacy ONNX exporter traces sizes as tensors and "
                        f"`{q}` rejects them ('AssertionError: expected (... int, float), got <class "
                        "'torch.Tensor'>'), with static shapes too. torch.export and onnx-dynamo handle it. "
                        "Use Python `min()` / `max()` on sizes, or `torch.clamp` on tensors, if the legacy "
                        "exporter must be used.",
                    )
        return ()
