"""EXL149 conv-groups-from-size: a convolution whose ``groups`` is a tensor's size.

The per-sample ("dynamic filter") convolution folds the batch into the channels and convolves
with one group per sample: ``F.conv_transpose2d(x.view(1, N * C, H, W), w, groups=N)``, ``N`` a
size of the input, the weight's shape following it. Measured with torch 2.13 (held-out
bench/cases/pkg_deconv_groups_batch, from https://github.com/pytorch/pytorch/issues/36454;
bench/labels/probes_cases17 ``c_*``), the batch declared dynamic: onnx-dynamo fails at step 3/3
("Error when translating node %convolution"), the legacy exporter fails ("Unsupported: ONNX
export of convolution for kernel of unknown shape"), for ``F.conv2d`` and ``F.conv_transpose2d``
alike; strict and non-strict torch.export pass and match at another batch. With fixed shapes
all four pass, and so does a weight computed in forward with a constant shape and constant
groups.
"""

from __future__ import annotations

from exportlint.checks.base import Rule, register
from exportlint.checks.common import all_declared_dims, call_arg, declares_dynamic, snippet
from exportlint.checks.control_flow import size_source
from exportlint.findings import Severity
from exportlint.semantics.kinds import SHAPE

#: convolution functions -> positional index of ``groups``
_CONV = {
    **{f"torch.nn.functional.conv{d}d": 6 for d in (1, 2, 3)},
    **{f"torch.conv{d}d": 6 for d in (1, 2, 3)},
    **{f"torch.nn.functional.conv_transpose{d}d": 6 for d in (1, 2, 3)},
    **{f"torch.conv_transpose{d}d": 6 for d in (1, 2, 3)},
}


@register
class ConvGroupsFromSize(Rule):
    code = "EXL149"
    name = "conv-groups-from-size"
    severity = Severity.ERROR
    exporters = ("onnx-dynamo", "onnx-legacy")
    summary = "A convolution whose groups is a tensor's size (per-sample filters): the ONNX exporters fail."

    def check(self, ctx):
        if "groups" not in ctx.text and "conv" not in ctx.text:
            return ()
        mode = declares_dynamic(ctx)
        if mode is False:
            return ()  # fixed shapes: measured to export everywhere
        for fn in ctx.model.functions:
            for site in fn.calls:
                pos = _CONV.get(site.qualname or "")
                if pos is None:
                    continue
                g = call_arg(site.node, "groups", pos)
                if g is None or fn.kind(g) != SHAPE:
                    continue
                sev = Severity.WARNING
                if fn.cls is not None and fn.node.name.value == "forward":
                    decl = all_declared_dims(ctx, fn.cls.name)
                    src = size_source(fn, g, set(decl)) if decl else None
                    if src is not None:
                        if src[1] not in decl.get(src[0], ()):
                            continue  # a size of a dim the export keeps static
                        sev = None
                ctx.report(
                    site.node,
                    f"`{snippet(ctx, site.node)}` convolves with `groups` set to a tensor's size "
                    f"(`{snippet(ctx, g)}`, per-sample filters): with that dimension dynamic onnx-dynamo fails to "
                    "translate the convolution ('Error when translating node %convolution') and the legacy "
                    "exporter rejects it ('ONNX export of convolution for kernel of unknown shape'); "
                    "torch.export keeps it. Export with a fixed batch, or loop over a fixed number of "
                    "samples with a static `groups`.",
                    severity=sev,
                )
        return ()
