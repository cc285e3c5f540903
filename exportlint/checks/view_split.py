"""EXL133 view-split-dynamic-dim: a ``view`` / ``reshape`` that splits a dimension read from the
tensor's own shape into ``(d // k, k)`` (space-to-depth, window and patch partitions).

Measured with torch 2.13 (bench/labels/probes_zoo15/probe_view_split.py, H and W declared
``Dim(min=64, max=1024)``): ``N, C, H, W = x.size(); x.view(N, C, H // 4, 4, W // 4, 4)`` (timm
tresnet's SpaceToDepth, space_to_depth.py:23), the same with ``reshape``, a channels-last window
partition, and the split of a size read after a strided conv fail strict and non-strict
torch.export: "Constraints violated (height, width)! ... Not all values of height ... satisfy the
generated guard (L['x'].size()[2] // 4) != L['x'].size()[2]" (the view needs ``H % 4 == 0``, which
a plain ``Dim`` does not promise; torch suggests ``height = 4*_height``). onnx-dynamo (which
retries with the suggested shapes) and the legacy exporter pass. Padding the tensor to a multiple
of ``k`` first (``F.pad(x, (0, (4 - W % 4) % 4, 0, (4 - H % 4) % 4))``, then reading its size) fails
the same way: torch cannot prove ``(H + (4 - H % 4) % 4) % 4 == 0``. A dim declared as a multiple
(``4 * Dim("h")``) and a static H/W pass; so does a view of another tensor sized from the input.

Reported as an error when the split dim is a dim of the forward's input that the project declares
dynamic; when the project's dynamic shapes are unknown (library code), as a warning, and only for
a view that splits two or more dims by the same factor (space-to-depth, window partitions: the
spatial dims; a single split is most often a channel split into heads, a static dim). Only in
``forward`` methods, where the module reads its input's size itself: the window-partition helpers
(functions, static methods) of swin, maxvit, davit... serve mostly fixed-size models, whose H/W
are static; they are left out to bound the noise in library code (see the rule page).
"""

from __future__ import annotations

import builtins
from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import all_declared_dims, declares_dynamic, snippet
from exportlint.checks.slices import (
    dim_exprs,
    size_source,
    target_names,
    unpacked_sizes,
)
from exportlint.findings import Severity
from exportlint.semantics.model import iter_nodes
from exportlint.semantics.nodes import iter_statements

_RESHAPES = frozenset({"view", "reshape"})


def _shape_args(call: cst.Call) -> Optional[list[cst.BaseExpression]]:
    """The size arguments of ``t.view(a, b, ...)`` / ``t.view((a, b, ...))`` (None with a
    keyword or a starred argument)."""
    if any(a.keyword is not None or a.star for a in call.args):
        return None
    vals = [a.value for a in call.args]
    if len(vals) == 1 and isinstance(vals[0], (cst.Tuple, cst.List)):
        els = vals[0].elements
        if any(isinstance(el, cst.StarredElement) for el in els):
            return None
        vals = [el.value for el in els]
    return vals


def _split_dims(fn, call: cst.Call, recv: str, code, unpacked_of: dict) -> list[tuple[int, str]]:
    """(dim of ``recv``, factor text) for each ``size // k`` argument of the view whose size is a
    dim of ``recv`` itself (``recv.shape[i]``, ``recv.size(i)``, or a name unpacked from
    ``recv.shape`` / ``recv.size()`` with ``recv`` not rebound before the view) and
    whose factor ``k`` is also an argument of the view. (``unpacked_of``: the run of the rule's
    ``unpacked_sizes`` per function, filled on first need.)"""
    args = _shape_args(call)
    if not args or len(args) < 3:
        return []
    texts = None
    out: list[tuple[int, str]] = []
    for a in args:
        if not (isinstance(a, cst.BinaryOperation) and isinstance(a.operator, cst.FloorDivide)):
            continue
        num, den = a.left, a.right
        src = size_source(num)
        if src is None and isinstance(num, cst.Name):
            unpacked = unpacked_of.get(id(fn))
            if unpacked is None:
                unpacked = unpacked_of[id(fn)] = unpacked_sizes(fn.node)
            got = unpacked.get(num.value, [])
            if len(got) == 1 and got[0][1] >= 0:
                t, i, st = got[0]
                if t == recv and _untouched_between(fn, recv, st, call):
                    src = (t, i)
        if src is None or src[0] != recv:
            continue
        if texts is None:
            texts = [code(x) for x in args]
        k = code(den)
        if k in texts:
            out.append((src[1], k))
    return out


def _untouched_between(fn, name: str, unpack: cst.CSTNode, call: cst.CSTNode) -> bool:
    """``name`` not rebound between the statement ``unpack`` and the statement holding ``call``
    (False when either is not found)."""
    seen = False
    for st in iter_statements(fn.node, into_defs=False):
        if st is unpack:
            seen = True
            continue
        if isinstance(st, cst.For) and name in target_names(st.target):
            if seen:
                return False
            continue
        if not isinstance(st, cst.BaseSmallStatement):
            continue
        if seen and (st is call or any(n is call for n in iter_nodes(st))):
            return True
        targets = []
        if isinstance(st, cst.Assign):
            targets = [n for t in st.targets for n in target_names(t.target)]
        elif isinstance(st, (cst.AugAssign, cst.AnnAssign)):
            targets = target_names(st.target)
        if seen and name in targets and not _same_tensor_through(st, name):
            return False
    return False


def _same_tensor_through(st: cst.CSTNode, name: str) -> bool:
    """``name = self.<attr>(name, ...)`` or ``name = helper(name, ...)``: the tensor handed through
    a submodule or a helper of the project, with no floor division or subscript in the statement.
    Whatever layout the call returns, a later view to ``(H // k, k)`` of a size ``H`` read from
    the tensor before it needs ``H % k == 0`` (the element count still holds ``H``: eager would fail
    otherwise). Measured (bench/labels/probes_lead29/probe_view_split_rebound.py): strict and
    non-strict fail with H/W declared, as without the call. A statement with a subscript or a
    floor division (a crop to a multiple, ``x[:, :, :h // k * k]``) is not passed through: it
    changes which size the view splits (the probe's crop fails too, but that is not this rule's
    claim). timm csatv2's DCT stem: ``x = self._denormalize(x)``, ``x = self._rgb_to_ycbcr(x)``,
    then ``x.reshape(b, c, h // self.k, self.k, w // self.k, self.k)``."""
    if not (isinstance(st, cst.Assign) and len(st.targets) == 1 and isinstance(st.targets[0].target, cst.Name)):
        return False
    v = st.value
    if not isinstance(v, cst.Call):
        return False
    f = v.func
    through = (isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value == "self") or (
        isinstance(f, cst.Name) and not hasattr(builtins, f.value))  # `list(x)`, `tuple(x)`: not a helper
    if not through or not any(a.keyword is None and not a.star and isinstance(a.value, cst.Name)
                              and a.value.value == name for a in v.args):
        return False
    return not any(isinstance(n, (cst.Subscript, cst.FloorDivide)) for n in iter_nodes(v))



@register
class ViewSplitDynamicDim(Rule):
    code = "EXL133"
    name = "view-split-dynamic-dim"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict")
    summary = "view/reshape splitting a dim read from the tensor's own shape into (d // k, k)."

    def check(self, ctx):
        if "//" not in ctx.text:
            return ()
        mode = declares_dynamic(ctx)
        if mode is False:
            return ()
        code = ctx.module.code_for_node
        exprs = None
        unpacked_of: dict = {}
        for fn in ctx.model.functions:
            if fn.cls is None or fn.node.name.value != "forward":
                continue  # a helper (function, static or other method): left out, see above
            declared = None
            for c in fn.calls:
                e = c.node
                f = e.func
                if not (isinstance(f, cst.Attribute) and f.attr.value in _RESHAPES and isinstance(f.value, cst.Name)):
                    continue
                recv = f.value.value
                splits = _split_dims(fn, e, recv, code, unpacked_of)
                if not splits:
                    continue
                if declared is None:
                    declared = all_declared_dims(ctx, fn.cls.name)
                own = declared.get(recv)
                if own:
                    if exprs is None:
                        exprs = dim_exprs(ctx)
                    mult = {i for i, x in exprs.get(recv, {}).items()
                            if isinstance(x, cst.BinaryOperation) and isinstance(x.operator, cst.Multiply)}
                    # declared a multiple in another file (a case package's `__init__`, the project's
                    # export script: the index marker "mult:d") is divisible too
                    pdims = ((getattr(ctx, "project_dynamic", None) or {}).get(fn.cls.name) or {}).get(recv, ())
                    mult |= {int(d[5:]) for d in pdims if isinstance(d, str) and d.startswith("mult:") and d[5:].isdigit()}
                    hit = [i for i, _ in splits if i in own and i not in mult]  # (`4 * Dim(...)`: divisible)
                    if not hit:
                        continue  # the split dims are static
                    sev = None
                else:
                    factors = [k for _, k in splits]
                    if not any(factors.count(k) >= 2 for k in factors):
                        continue  # one split: most often channels into heads
                    sev = Severity.WARNING
                dims = ", ".join(str(i) for i, _ in splits)
                ctx.report(
                    e,
                    f"`{snippet(ctx, e)}` splits dim(s) {dims} of `{recv}` into (size // k, k): with those dims "
                    "dynamic, strict and non-strict torch.export fail here ('Constraints violated ... Not all "
                    "values of ... satisfy the generated guard (H // k) != H'): the view needs H % k == 0, "
                    "which a plain Dim does not promise. onnx-dynamo and onnx-legacy pass. Declare the dim as "
                    "a multiple (`k * Dim(...)`), or export it static (padding to a multiple first does not help: torch "
                    "cannot prove the padded size divisible).",
                    severity=sev,
                )
        return ()
