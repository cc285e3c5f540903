"""EXL149 conv-groups-from-size: a convolution whose ``groups`` is a tensor's batch size.

The per-sample ("dynamic filter") convolution folds the batch into the channels and convolves
with one group per sample: ``F.conv_transpose2d(x.view(1, N * C, H, W), w, groups=N)``, ``N`` the
input's batch, the weight's shape following it. Measured with torch 2.13 (held-out
bench/cases/pkg_deconv_groups_batch, from https://github.com/pytorch/pytorch/issues/36454;
bench/labels/probes_cases17 ``c_*``), the batch declared dynamic: onnx-dynamo fails at step 3/3
("Error when translating node %convolution", located at the call of the helper that convolves),
the legacy exporter fails ("Unsupported: ONNX export of convolution for kernel of unknown
shape"), for ``F.conv2d`` and ``F.conv_transpose2d`` alike; strict and non-strict torch.export
pass and match at another batch. With fixed shapes all four pass, and so does a weight computed
in forward with a constant shape and constant groups.

Reported where ``groups`` is read from a size (``size_source``): in ``forward``, an error when
that dim of the input is declared dynamic (silent when it is declared static); elsewhere (a
helper, dims unknown), a warning when it is dim 0, the batch (a depthwise ``groups=C`` of the
channels is static: not claimed). And, for onnx-dynamo, at a call from another file into such a
helper (the callee summary ``CONV_GROUPS_RESULT``), a warning.
"""

from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from exportlint.checks.base import Rule, callee_summary, register
from exportlint.checks.common import (all_declared_dims, call_arg, declares_dynamic, param_names, snippet,
                                      with_carried)
from exportlint.checks.control_flow import size_source
from exportlint.findings import Severity
from exportlint.semantics.kinds import CONV_GROUPS_RESULT, SHAPE

#: convolution functions -> positional index of ``groups``
_CONV = {
    **{f"torch.nn.functional.conv{d}d": 6 for d in (1, 2, 3)},
    **{f"torch.conv{d}d": 6 for d in (1, 2, 3)},
    **{f"torch.nn.functional.conv_transpose{d}d": 6 for d in (1, 2, 3)},
    **{f"torch.conv_transpose{d}d": 6 for d in (1, 2, 3)},
}


@callee_summary(CONV_GROUPS_RESULT)
def helper_convolves_by_batch(model: Any, facts: Any) -> str:
    """"1" when ``facts`` (a root of another file's call) or a function of its file it calls
    convolves with ``groups`` set to the batch size of one of its parameters."""
    return "1" if any(src[1] == 0 for f in model.reached_from(facts) for _, _, src in _batch_groups_any(f)) else ""


def _batch_groups_any(fn: Any):
    for site in fn.calls:
        pos = _CONV.get(site.qualname or "")
        if pos is None:
            continue
        g = call_arg(site.node, "groups", pos)
        if g is None or fn.kind(g) != SHAPE:
            continue
        src = size_source(fn, g, param_names(fn))
        if src is not None:
            yield site.node, g, src


@register
class ConvGroupsFromSize(Rule):
    code = "EXL149"
    name = "conv-groups-from-size"
    severity = Severity.ERROR
    exporters = ("onnx-dynamo", "onnx-legacy")
    summary = "A convolution whose groups is the batch size (per-sample filters): the ONNX exporters fail."

    def check(self, ctx):
        mode = declares_dynamic(ctx)
        if mode is False:
            return ()  # fixed shapes: measured to export everywhere
        from exportlint.semantics.data_sized import call_key

        rets = ctx.model.call_returns
        grouped = "groups" in ctx.text  # (one scan of the text, not one per function)
        for fn in ctx.model.functions:
            if grouped:
                decl = all_declared_dims(ctx, fn.cls.name) if fn.cls is not None and fn.node.name.value == "forward" else {}
                # with the dims a declared model hands this function (semantics/dim_flow.py)
                decl = with_carried(ctx, fn, decl)
                for call, g, (param, dim) in _batch_groups_any(fn):
                    if decl and param in decl:
                        if dim not in decl[param]:
                            continue  # a dim the export keeps static
                        sev = None
                    elif dim == 0:
                        sev = Severity.WARNING  # the batch, whose dims are not known here
                    else:
                        continue
                    ctx.report(
                        call,
                        f"`{snippet(ctx, call)}` convolves with `groups` set to a tensor's size (`{snippet(ctx, g)}`, "
                        f"dim {dim} of `{param}`: per-sample filters): with that dimension dynamic onnx-dynamo fails "
                        "to translate the convolution ('Error when translating node %convolution') and the legacy "
                        "exporter rejects it ('ONNX export of convolution for kernel of unknown shape'); "
                        "torch.export keeps it. Export with a fixed batch, or apply the per-sample filters "
                        "without grouping (`F.unfold` + `einsum`).",
                        severity=sev,
                    )
            if not rets:
                continue
            here: Optional[dict] = None
            for site in fn.calls:
                key = call_key(fn, site)
                if not key or rets.get(key + CONV_GROUPS_RESULT) != "1":
                    continue
                callee = (site.qualname or key).rsplit(".", 1)[-1]
                if here is None:
                    here = with_carried(ctx, fn, all_declared_dims(ctx, fn.cls.name)
                                        if fn.cls is not None and fn.node.name.value == "forward" else {})
                # a tensor whose batch the export declares dynamic is handed over: measured
                # (bench/cases/pkg_deconv_groups_batch) onnx-dynamo fails at this call
                batch = any(isinstance(a.value, cst.Name) and 0 in here.get(a.value.value, ())
                            for a in site.node.args if not a.star)
                ctx.report(
                    site.node,
                    f"`{callee}(...)` (another file) convolves with `groups` set to the batch size of what it gets "
                    "here (per-sample filters): with the batch dynamic onnx-dynamo fails to translate the "
                    "convolution and points at this call ('Error when translating node %convolution'). Export "
                    "with a fixed batch, or apply the per-sample filters without grouping.",
                    severity=None if batch else Severity.WARNING,
                    exporters=("onnx-dynamo",),
                )
        return ()
