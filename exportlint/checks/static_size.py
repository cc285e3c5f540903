"""EXL129: a size of a tensor handed to an op argument the exporters need as a constant.

Measured with torch 2.13 (``H``/``W`` declared dynamic with ``Dim``; the rule page quotes the
messages; probes like ``F.avg_pool2d(x, x.size()[2:])``, ``F.avg_pool2d(x, kernel_size=(h // 4,
w // 4), stride=...)``, ``F.max_pool2d(x, 2, stride=h // 8)``, ``F.avg_pool1d(x, h // 4)``,
``nn.AvgPool2d(x.shape[2:])(x)``, ``nn.MaxPool2d(h // 4)(x)``, ``F.interpolate(x,
scale_factor=h / 16)``, ``scale_factor=(h // 8) / 4``, ``scale_factor=((h // 8 + 0.1) / 4,
...)``):

- strict and non-strict torch.export fail: the kernel / stride / scale is specialised to the
  example's value ("Constraints violated (H, W)! ... inferred to be a constant");
- onnx-dynamo falls back and writes the dims static (onnxruntime rejects other sizes) or fails;
- the legacy exporter fails ("Failed to export a node ... because it is not constant. Please try
  to make things (e.g. kernel sizes) static if possible"; ``upsample_*2d() received an invalid
  combination of arguments`` for a traced scale) or bakes the example's kernel (wrong at other
  sizes).

Controls that pass everywhere (measured): a constant kernel / scale (``F.avg_pool2d(x, 2)``,
``scale_factor=2.0``), an output ``size=`` computed from sizes (``F.interpolate(x, size=(h // 2,
w // 2))``), adaptive pooling (EXL113's business).

Reported at the op; and at a call into a helper of another project file that does this with a
size of what it receives (``pool_to_grid(k, self.grid)``; the exporters locate the constraint
violation there), through the callee's result ``kinds.STATIC_SIZE_RESULT``.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

import libcst as cst

from exportlint.checks.base import Rule, callee_summary, register
from exportlint.checks.common import all_declared_dims, call_arg, declares_dynamic, snippet
from exportlint.findings import Severity
from exportlint.semantics.imports import dotted
from exportlint.semantics.kinds import SHAPE, STATIC_SIZE_RESULT

_POOL_F = (("kernel_size", 1), ("stride", 2))
_POOL_M = (("kernel_size", 0), ("stride", 1))
#: op -> (argument name, positional index) that must be a Python constant
STATIC_SIZE_ARGS: dict[str, tuple[tuple[str, int], ...]] = {
    **{f"torch.nn.functional.{k}_pool{d}d": _POOL_F for k in ("avg", "max") for d in (1, 2, 3)},
    **{f"torch.max_pool{d}d": _POOL_F for d in (1, 2, 3)},
    "torch.avg_pool1d": _POOL_F,
    **{f"torch.nn.{k}Pool{d}d": _POOL_M for k in ("Avg", "Max") for d in (1, 2, 3)},
    "torch.nn.functional.interpolate": (("scale_factor", 2),),
    "torch.nn.functional.upsample": (("scale_factor", 2),),
    "torch.nn.Upsample": (("scale_factor", 1),),
    "torch.nn.functional.fold": (("output_size", 1),),
}
#: ops whose size argument only the legacy exporter needs constant, in every mode: measured (torch 2.13,
#: bench/labels/probes_zoo15/probe_fold_size.py) ``F.fold(u, output_size=(H, W), ...)`` with ``H, W =``
#: a shape fails the legacy exporter ("TypeError: 'NoneType' object is not subscriptable (Occurred when
#: translating col2im)") with a dynamic batch, with H/W dynamic and with no dynamic axes at all; a literal
#: ``output_size`` passes; strict, non-strict torch.export and onnx-dynamo pass every case (timm VOLO,
#: volo.py:114, held-out volo_d1's legacy failure)
LEGACY_ONLY = frozenset({"torch.nn.functional.fold"})


def _is_size(fn: Any, e: cst.BaseExpression) -> bool:
    if fn.kinds.get(id(e)) == SHAPE:
        return True
    if isinstance(e, (cst.Tuple, cst.List)):
        return any(isinstance(el, cst.Element) and fn.kinds.get(id(el.value)) == SHAPE for el in e.elements)
    return False


def static_size_uses(fn: Any) -> Iterator[tuple[cst.Call, cst.BaseExpression, str, str]]:
    """(call, argument, op, argument name) for each op call of ``fn`` handed a size (kind SHAPE)
    where the exporters need a constant."""
    for site in fn.calls:
        q = site.qualname or ""
        spec = STATIC_SIZE_ARGS.get(q)
        if spec is None:
            continue
        for name, pos in spec:
            a = call_arg(site.node, name, pos)
            if a is not None and _is_size(fn, a):
                yield site.node, a, q, name
                break


@callee_summary(STATIC_SIZE_RESULT)
def helper_uses_static_size(model: Any, facts: Any) -> str:
    """"1" when ``facts`` (a root of another file's call) or a function of its file it calls hands
    a size to such an op (what ``STATIC_SIZE_RESULT`` tells the caller), else ""."""
    return "1" if any(q not in LEGACY_ONLY for f in model.reached_from(facts) for _, _, q, _ in static_size_uses(f)) else ""


_TO_NUMBER = frozenset({"int", "float", "round", "builtins.int", "builtins.float", "builtins.round"})


def traced_scale(fn: Any, e: cst.BaseExpression, values: Optional[dict] = None, depth: int = 0) -> bool:
    """Whether a size reaches the scale ``e`` without being made a Python number first. The legacy
    tracer hands sizes around as traced values: a scale computed from them by arithmetic
    (``(h // p + 0.1) / m``) is a tensor, and ``upsample_*2d`` rejects it; ``math.sqrt(n / N)``,
    ``float(h) / 4``, ``int(...)`` turn it into a Python float (a TracerWarning, a baked constant)
    and the export passes with fixed shapes (measured, bench/labels/probes_cases17
    ``s_scale_math_sqrt_static``, ``s_scale_float_static``; lightly's and msn's
    ``interpolate_pos_encoding``, ``scale_factor=math.sqrt(npatch / N)``)."""
    if depth > 8 or fn.kind(e) != SHAPE and not isinstance(e, (cst.Tuple, cst.List)):
        return False
    if values is None:
        from exportlint.checks.shapes import local_values

        values = local_values(fn)
    if isinstance(e, (cst.Tuple, cst.List)):
        return any(isinstance(el, cst.Element) and traced_scale(fn, el.value, values, depth + 1) for el in e.elements)
    if isinstance(e, cst.Call):
        q = fn.imports.resolve(e.func) or dotted(e.func) or ""
        if q in _TO_NUMBER or q.startswith("math."):
            return False
        return True  # `x.size(2)`, `x.shape[2]`-like reads and other calls on sizes
    if isinstance(e, cst.BinaryOperation):
        return traced_scale(fn, e.left, values, depth + 1) or traced_scale(fn, e.right, values, depth + 1)
    if isinstance(e, cst.UnaryOperation):
        return traced_scale(fn, e.expression, values, depth + 1)
    if isinstance(e, cst.Name):
        vals = values.get(e.value)
        if not vals:
            return True  # a parameter or a loop variable holding a size
        return any(traced_scale(fn, v, values, depth + 1) for v in vals)
    return True  # `x.shape[2]`, `h[0]`: a size read


def _only_batch_dynamic(ctx, fn) -> bool:
    """The project declares dims dynamic for this function's class, and only dim 0: the sizes
    such ops read (spatial dims) are static there."""
    if fn.cls is None:
        return False
    dims = all_declared_dims(ctx, fn.cls.name)
    found = [d for ds in dims.values() for d in ds]
    return bool(found) and all(d == 0 for d in found)


@register
class SizeAsStaticArgument(Rule):
    code = "EXL129"
    name = "size-as-static-argument"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")
    summary = ("A tensor's size used as a pooling kernel/stride or an interpolate scale_factor: "
               "specialised by torch.export, not constant for the legacy exporter.")

    def check(self, ctx):
        mode = declares_dynamic(ctx)
        sev = None if mode else Severity.WARNING
        from exportlint.semantics.data_sized import call_key

        rets = ctx.model.call_returns
        for fn in ctx.model.functions:
            batch_only = mode is not False and _only_batch_dynamic(ctx, fn)
            for call, arg, q, name in static_size_uses(fn):
                op = q.rsplit(".", 1)[-1]
                scale = name == "scale_factor"
                if q in LEGACY_ONLY:
                    ctx.report(
                        call,
                        f"`{op}` gets a tensor size as its `{name}` (`{snippet(ctx, arg)}`): the legacy exporter "
                        "traces it as a tensor and cannot translate the op ('NoneType' object is not subscriptable "
                        "(Occurred when translating col2im)), with dynamic axes or without; torch.export and "
                        "onnx-dynamo keep it. Pass a Python int (a config value, or `int` sizes computed in "
                        "`__init__`) as the output size.",
                        severity=Severity.ERROR,
                        exporters=("onnx-legacy",),
                    )
                    continue
                if mode is False or batch_only:
                    # static spatial dims: torch.export and onnx-dynamo keep the constant (measured);
                    # the legacy tracer still fails on a scale made from traced sizes, even with
                    # fixed shapes (not on one made a Python float first: `math.sqrt(n / N)`), and
                    # on a kernel made from them once any dim is dynamic_axes
                    if not scale and mode is False:
                        continue
                    if scale and not traced_scale(fn, arg):
                        continue
                    exps: tuple[str, ...] = ("onnx-legacy",)
                    sev_here = Severity.ERROR
                elif scale and mode is None and traced_scale(fn, arg):
                    # dynamic shapes unknown (no export call of the project declares any): torch.export
                    # and onnx-dynamo break only if a dim is dynamic (the caller's finding, when the
                    # caller knows), but the legacy tracer fails on a scale made from traced sizes with
                    # fixed shapes too (measured, bench/labels/probes_cases17 s_scale_from_size_*_static;
                    # held-out pkg_dinov2_pos_bicubic_opset17): an error, for it alone
                    exps, sev_here = ("onnx-legacy",), Severity.ERROR
                else:
                    exps, sev_here = self.exporters, sev
                ctx.report(
                    call,
                    f"`{op}` gets a tensor size as its `{name}` (`{snippet(ctx, arg)}`): "
                    + ("with that dimension dynamic torch.export specialises it ('Constraints violated ... "
                       "inferred to be a constant'), onnx-dynamo falls back to static dims, and " if len(exps) > 1 else
                       "if the export makes that dimension dynamic, torch.export specialises it and onnx-dynamo "
                       "falls back to static dims; with fixed shapes too, " if scale and mode is None else "")
                    + ("the legacy exporter traces the scale as a tensor ('upsample_*2d() received an invalid "
                       "combination of arguments')" if scale else
                       "the legacy exporter needs it constant ('Failed to export a node ... because it is not "
                       "constant') or bakes the example's value")
                    + ". Use a fixed kernel/scale, an output `size=` (`F.interpolate(x, size=(h // 2, w // 2))`), "
                    "or adaptive pooling (`F.adaptive_avg_pool2d(x, 1)` for global pooling).",
                    severity=sev_here,
                    exporters=exps,
                )
            if not rets or mode is False or batch_only:
                continue
            for site in fn.calls:
                key = call_key(fn, site)
                if not key or rets.get(key + STATIC_SIZE_RESULT) != "1":
                    continue
                callee = (site.qualname or key).rsplit(".", 1)[-1]
                ctx.report(
                    site.node,
                    f"`{callee}(...)` (another file) uses a size of what it gets here as a pooling "
                    "kernel/stride or an interpolate `scale_factor`: with those dimensions dynamic "
                    "torch.export specialises them at this call ('Constraints violated ... inferred to be "
                    "a constant') and onnx-dynamo falls back to static dims; the legacy exporter fails "
                    "or bakes the value in the helper. Pass a fixed kernel/scale or compute an output "
                    "`size=` instead.",
                    severity=sev,
                    exporters=("export-strict", "export-nonstrict", "onnx-dynamo"),
                )
        return ()
