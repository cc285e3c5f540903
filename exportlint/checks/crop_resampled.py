"""EXL148 crop-to-size-after-downsampling: a map that went through a strided convolution or pooling
cropped back to the size of a tensor that did not (the UNet / Demucs "trim to the skip" step), on a
dim the export declares dynamic.

Measured with torch 2.13 (bench/labels/probes_cases20/probe_crop.py, ``.out``; H declared
``Dim("h", min=5, max=64)``): ``y = up(down(x))`` (a stride-2 conv or pooling, then a stride-2
transposed conv or a x2 interpolate) cropped with ``y[:, :, :x.size(2)]`` or
``y.narrow(2, 0, x.size(2))``, and ``down(x)[:, :, :x.size(2)]``, fail export-strict and
export-nonstrict: "Constraints violated (h)! ... Not all values of h ... satisfy the generated
guard L['x'].size()[2] <= 2 + 2*(((-1) + L['x'].size()[2]) // 2)" (whether the crop cuts
anything depends on the size's parity: torch.export specialises). The same crop after a
stride-1 conv, after ``F.pad``, after an upsampling alone, or with H declared a multiple
(``2 * Dim("_h")``) exports. Held-out: bench/cases/pkg_scripted_trim_narrow
(pytorch/pytorch#27838), strict and non-strict fail at ``trim.py:6``; the ONNX exporters pass.

The dims come from ``semantics/dim_flow.py``: a declared model's dynamic dims followed into the
functions it reaches, marked ``DOWN`` after a submodule ``nn.Conv*d`` / ``nn.*Pool*d`` with a
literal stride above 1 that its own ``__init__`` builds. Reported at the crop
(``a[..., :b.size(d)]``, ``a.narrow(d, 0, b.shape[d])``, the size inline or a name bound once to
it) when ``a`` carries dim ``d`` marked ``DOWN`` and ``b`` carries ``d`` unmarked; an error. Not
reported for a dim declared a multiple, nor where the dims are not followed.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import all_declared_dims, assignments_in_scope, carried_record, snippet
from exportlint.checks.size_ops import bound_once
from exportlint.checks.slices import size_source
from exportlint.findings import Severity
from exportlint.semantics.dim_flow import DOWN
from exportlint.semantics.model import iter_nodes, literal_value


def _size_of(fn, e: Optional[cst.BaseExpression]) -> Optional[tuple[str, int]]:
    if e is None:
        return None
    got = size_source(e)
    if got is None and isinstance(e, cst.Name):
        v = bound_once(fn, e.value)
        got = size_source(v) if v is not None else None
    return got


def _crops(node: cst.CSTNode):
    """(cropped name, dim, size expression) of ``a[..., :s]`` (plain indices before it) and
    ``a.narrow(d, 0, s)``."""
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
        for i, el in enumerate(node.slice):
            s = el.slice
            if isinstance(s, cst.Index):
                if isinstance(s.value, cst.Ellipsis) or (isinstance(s.value, cst.Name) and s.value.value == "None"):
                    return  # the dims after it are not counted
                continue
            if isinstance(s, cst.Slice):
                lower = literal_value(s.lower) if s.lower is not None else 0
                if s.upper is not None and s.step is None and lower == 0:
                    yield node.value.value, i, s.upper
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "narrow" \
            and isinstance(node.func.value, cst.Name):
        args = [a for a in node.args if a.keyword is None and not a.star]
        if len(args) == 3 and literal_value(args[1].value) == 0:
            d = literal_value(args[0].value)
            if isinstance(d, int) and not isinstance(d, bool) and d >= 0:
                yield node.func.value.value, d, args[2].value


_STRIDED = ("Conv1d", "Conv2d", "Conv3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d",
            "AvgPool3d")


def _strided_ctor(ctx, call: cst.Call) -> bool:
    """A ``torch.nn`` convolution / pooling constructor with a literal stride above 1 (a pooling's
    stride defaults to its kernel size); the libcst twin of ``dim_flow._Walk.strided``."""
    q = ctx.model.imports.resolve(call.func) or ""
    last = q.rsplit(".", 1)[-1]
    if not q.startswith("torch.nn.") or last not in _STRIDED:
        return False
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    pos = [a.value for a in call.args if a.keyword is None and not a.star]
    if "Pool" in last:
        stride = kw.get("stride", pos[1] if len(pos) > 1 else None)
        if stride is None or (isinstance(stride, cst.Name) and stride.value == "None"):
            stride = kw.get("kernel_size", pos[0] if pos else None)
    else:
        stride = kw.get("stride", pos[3] if len(pos) > 3 else None)
    if stride is None:
        return False
    vals = [e.value for e in stride.elements] if isinstance(stride, cst.Tuple) else [stride]
    return any(isinstance(literal_value(v), int) and not isinstance(literal_value(v), bool)
               and literal_value(v) > 1 for v in vals)


def _declared_multiple(ctx, param: str, d: int) -> bool:
    """The file's ``dynamic_shapes`` gives ``param``'s dim ``d`` as a product (``2 * Dim("_h")``)."""
    for ec in ctx.model.export_calls:
        ds = ec.kwarg("dynamic_shapes")
        if isinstance(ds, cst.Name):
            vals = [v for n, v, _ in assignments_in_scope(ctx.module) if n == ds.value]
            ds = vals[0] if len(vals) == 1 else None
        if not isinstance(ds, cst.Dict):
            continue
        for el in ds.elements:
            if isinstance(el, cst.DictElement) and literal_value(el.key) == param and isinstance(el.value, cst.Dict):
                for e in el.value.elements:
                    if isinstance(e, cst.DictElement) and literal_value(e.key) == d:
                        return isinstance(e.value, cst.BinaryOperation) and isinstance(e.value.operator, cst.Multiply)
    return False


def _local_record(ctx, fn) -> dict[str, set]:
    """Without the project analysis (one source: the LSP, ``lint_source``): a declared forward's
    own inputs with their declared dims, and names it binds once to an expression that calls a
    strided conv / pooling submodule on one of them (those dims, marked ``DOWN``)."""
    if not fn.is_forward or fn.cls is None:
        return {}
    dyn = all_declared_dims(ctx, fn.cls.name)
    if not dyn:
        return {}
    rec: dict[str, set] = {p: {d for d in ds if isinstance(d, int)
                               and not _declared_multiple(ctx, p, d)} for p, ds in dyn.items()}
    for st in iter_nodes(fn.node.body):
        if not (isinstance(st, cst.Assign) and len(st.targets) == 1 and isinstance(st.targets[0].target, cst.Name)):
            continue
        name = st.targets[0].target.value
        if name in rec or bound_once(fn, name) is not st.value:
            continue
        strided, seen = False, set()
        for n in iter_nodes(st.value):
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and isinstance(n.func.value, cst.Name) \
                    and n.func.value.value == fn.self_name:
                fact = fn.cls.find_attr(n.func.attr.value)
                if fact is not None and fact.what == "submodule" and isinstance(fact.value, cst.Call) \
                        and _strided_ctor(ctx, fact.value):
                    strided = True
            elif isinstance(n, cst.Name) and n.value in dyn:
                seen |= rec.get(n.value, set())
        if strided and seen:
            rec[name] = seen | {DOWN}
    return rec


@register
class CropAfterDownsampling(Rule):
    code = "EXL148"
    name = "crop-to-size-after-downsampling"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict")
    summary = "A strided-conv/pool map cropped to an unstrided tensor's dynamic size: torch.export specialises it."

    def check(self, ctx):
        for fn in ctx.model.functions:
            rec = carried_record(ctx, fn) if getattr(ctx, "project_fn_dims", None) is not None \
                else _local_record(ctx, fn)
            if not rec or not any(DOWN in ds for ds in rec.values()):
                continue
            for node in iter_nodes(fn.node.body):
                for a, d, size in _crops(node):
                    src = _size_of(fn, size)
                    if src is None or src[0] == a or src[1] != d:
                        continue
                    ra, rb = rec.get(a, ()), rec.get(src[0], ())
                    if DOWN not in ra or d not in ra or d not in rb or DOWN in rb or f"mult:{d}" in rb:
                        continue
                    ctx.report(
                        node,
                        f"`{snippet(ctx, node)}` crops `{a}`, which went through a strided convolution or "
                        f"pooling, to the size of `{src[0]}`'s dim {d}, which the export declares dynamic: "
                        "whether the crop cuts anything depends on the size (its parity), and torch.export "
                        "(strict and non-strict) specialises it ('Constraints violated ... satisfy the "
                        "generated guard h <= 2 + 2*((h - 1) // 2)'). Declare the dim a multiple of the "
                        "stride (`h = 2 * Dim(...)`), or pad the input to one before the network; the ONNX "
                        "exporters pass.",
                    )
                    break  # one finding per crop (`y[:, :, :x.size(2), :x.size(3)]`)
        return ()
