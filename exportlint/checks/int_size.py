"""EXL137 int-of-dynamic-size: ``int()`` of a tensor size along a dimension declared dynamic.

Measured with torch 2.13 (H and W declared ``Dim("H", min=16, max=128)`` /
``Dim("W", ...)``): ``h = int(x.shape[2])``, ``[int(t) for t in x.size()[2:]]`` (BiSeNet,
bench/cases pkg_bisenet_int_shape_list) and ``[int(t) for t in x.shape[2:]]`` fail non-strict
torch.export there ("Constraints violated (H, W)! ... You marked H as dynamic but your code
specialized it to be a constant (32)"); strict torch.export passes (it traces ``int`` of a SymInt
as the SymInt). Measured again for cases17 (bench/labels/probes_cases17, ``h, w = int(x.size(2)),
int(x.size(3))`` feeding a reshape, H/W declared; held-out ``pkg_int_size_subpixel_opset10``):
onnx-dynamo exports but writes H/W static (its torch.export step is non-strict and retries with the
suggested fix: onnxruntime rejects another size), and the legacy exporter bakes the example's
sizes (TracerWarning "Converting a tensor to a Python integer"; the Reshape fails at another
size): both are wrong at other sizes, so both are named. ``int()`` of a dimension not declared
dynamic (``int(x.shape[1])`` with H/W dynamic, ``int(x.shape[0])`` with only H/W dynamic) passes
everywhere.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import (
    all_declared_dims,
    carried_dims,
    carried_sizes,
    declares_dynamic,
    snippet,
    with_carried,
)
from exportlint.findings import Severity
from exportlint.semantics.kinds import TENSORISH
from exportlint.semantics.model import iter_nodes, literal_value

_INT = frozenset({"int", "builtins.int"})


def _size_ref(e: cst.BaseExpression) -> Optional[tuple[cst.BaseExpression, object]]:
    """``B.shape[k]`` / ``B.size(k)`` / ``B.size()[k]`` -> (B, k) for a literal k >= 0;
    ``B.shape[a:]`` / ``B.size()[a:]`` -> (B, slice(a, None))."""
    if isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value == "size":
        pos = [a for a in e.args if a.keyword is None and not a.star]
        if len(pos) == 1 and len(e.args) == 1:
            k = literal_value(pos[0].value)
            if isinstance(k, int) and not isinstance(k, bool):
                return e.func.value, k
        return None
    if not (isinstance(e, cst.Subscript) and len(e.slice) == 1):
        return None
    v = e.value
    if isinstance(v, cst.Attribute) and v.attr.value == "shape":
        base = v.value
    elif (isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "size"
          and not v.args):
        base = v.func.value
    else:
        return None
    sl = e.slice[0].slice
    if isinstance(sl, cst.Index):
        k = literal_value(sl.value)
        if isinstance(k, int) and not isinstance(k, bool):
            return base, k  # (a negative dim counts from the end: read only when no dim is declared)
        return None
    if isinstance(sl, cst.Slice) and sl.upper is None and sl.step is None:
        a = 0 if sl.lower is None else literal_value(sl.lower)
        if isinstance(a, int) and not isinstance(a, bool) and a >= 0:
            return base, slice(a, None)
    return None


def _comp_sources(fnode: cst.CSTNode) -> dict[int, tuple[cst.BaseExpression, object]]:
    """id(Name node) of a comprehension's use of its target -> the size slice it walks
    (``[int(t) for t in x.size()[2:]]``)."""
    out: dict[int, tuple[cst.BaseExpression, object]] = {}
    for comp in iter_nodes(fnode):
        if not isinstance(comp, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            continue
        f = comp.for_in
        if f.inner_for_in is not None or not isinstance(f.target, cst.Name):
            continue
        ref = _size_ref(f.iter)
        if ref is None or not isinstance(ref[1], slice):
            continue
        for n in iter_nodes(comp.elt):
            if isinstance(n, cst.Name) and n.value == f.target.value:
                out[id(n)] = ref
    return out


def _int_of_sizes(fn):
    """(call, tensor, index) for each ``int(<size>)`` in ``fn`` whose argument is a size of a
    tensor-kinded name (``int(x.shape[2])``, or a comprehension variable over ``x.size()[2:]``):
    ``index`` an int or a slice of dims."""
    comps: Optional[dict] = None
    for call in fn.calls:
        if call.qualname not in _INT or len(call.node.args) != 1:
            continue
        arg = call.node.args[0].value
        ref = _size_ref(arg)
        if ref is None and isinstance(arg, cst.Name):
            if comps is None:
                comps = _comp_sources(fn.node)
            ref = comps.get(id(arg))
        if ref is None:
            continue
        base, k = ref
        if fn.kind(base) in TENSORISH:
            yield call, base, k


@register
class IntOfDynamicSize(Rule):
    code = "EXL137"
    name = "int-of-dynamic-size"
    severity = Severity.ERROR
    exporters = ("export-nonstrict", "onnx-dynamo", "onnx-legacy")
    summary = ("int() of a size along a dimension declared dynamic: non-strict torch.export specialises it, "
               "onnx-dynamo exports it static, the legacy exporter bakes it.")

    def check(self, ctx):
        if "int(" not in ctx.text:
            return ()
        mode = declares_dynamic(ctx)
        if mode is False:
            return ()
        cache: dict[str, dict[str, set]] = {}
        for fn in ctx.model.functions:
            self._carried_size(ctx, fn)
            # the declared dims a declared model hands this function (semantics/dim_flow.py)
            carried = carried_dims(ctx, fn)
            if fn.cls is None:
                if not carried:
                    if mode is None:
                        self._unknown(ctx, fn)
                    continue
                decl = carried
            else:
                key = fn.cls.name
                if key not in cache:
                    cache[key] = all_declared_dims(ctx, key)
                decl = with_carried(ctx, fn, cache[key]) if carried else cache[key]
            dims_any = set().union(*decl.values()) if decl else set()
            if not dims_any:
                if mode is None:
                    self._unknown(ctx, fn)
                continue  # nothing declared dynamic for this class: only the warning above
            for call, base, k in _int_of_sizes(fn):
                if isinstance(k, int) and k < 0:
                    continue  # counted from the end: the declared index is not known to match
                own = decl.get(base.value, set()) if isinstance(base, cst.Name) else set()
                if isinstance(k, slice):
                    hit_own = {d for d in own if d >= k.start}
                    hit_any = {d for d in dims_any if d >= k.start}
                else:
                    hit_own = {k} & own
                    hit_any = {k} & dims_any
                if not hit_any:
                    continue
                # a forward input with that dim declared: error; a tensor computed from the inputs
                # (a feature map keeping the layout) with a declared dim at that index: a warning
                sev = None if hit_own else Severity.WARNING
                d = min(hit_own or hit_any)
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` turns a size along dim {d}, declared dynamic, into a Python int: "
                    "non-strict torch.export specialises the dimension there ('Constraints violated ... You marked "
                    "H as dynamic but your code specialized it to be a constant'), onnx-dynamo then exports "
                    "the dimension static and the legacy exporter bakes the example's size (both wrong at other "
                    "sizes); strict torch.export keeps it symbolic. Use the size itself (`x.shape[2]`, "
                    "`list(x.shape[2:])`) instead of `int(...)`.",
                    severity=sev,
                )
        return ()

    @staticmethod
    def _carried_size(ctx, fn) -> None:
        """``int(h)`` of a name every binding of which is a size equal to a dim the declared model
        declares dynamic, handed here (``grid(x.shape[2])``, ``h, w = size`` of ``x.shape[2:]``:
        semantics/dim_flow.py): the same specialisation as ``int(x.shape[2])`` in ``forward``."""
        sizes = carried_sizes(ctx, fn)
        if not sizes:
            return
        for call in fn.calls:
            if call.qualname not in _INT or len(call.node.args) != 1:
                continue
            arg = call.node.args[0].value
            if not (isinstance(arg, cst.Name) and arg.value in sizes):
                continue
            ctx.report(
                call.node,
                f"`{snippet(ctx, call.node)}` turns `{arg.value}`, a size along a dim the exported model declares "
                "dynamic (handed here from its forward), into a Python int: non-strict torch.export specialises "
                "the dimension there ('Constraints violated ... your code specialized it to be a constant'), "
                "onnx-dynamo then exports the dimension static and the legacy exporter bakes the example's size "
                "(both wrong at other sizes); strict torch.export keeps it symbolic. Use the size itself "
                f"(`{arg.value}`) instead of `int(...)`.",
            )

    @staticmethod
    def _unknown(ctx, fn) -> None:
        """No export call anywhere (a library): a warning on ``int()`` of a trailing dim (a negative
        index, or 2 and up: H/W of an image, a sequence after batch and channels), which the user's
        export may declare dynamic. Batch (0) and dim 1 (channels of an image) are not claimed."""
        for call, base, k in _int_of_sizes(fn):
            if isinstance(k, slice):
                if k.start < 2:
                    continue
            elif 0 <= k < 2:
                continue
            ctx.report(
                call.node,
                f"`{snippet(ctx, call.node)}` turns a size into a Python int: if an export declares that dim "
                "dynamic, non-strict torch.export specialises it there ('Constraints violated ... You marked "
                "height as dynamic but your code specialized it to be a constant'), onnx-dynamo then exports "
                "it static and the legacy exporter bakes the example's size; strict torch.export keeps it "
                "symbolic. Use the size itself (`x.shape[-2]`) instead of `int(...)`.",
                severity=Severity.WARNING,
            )
