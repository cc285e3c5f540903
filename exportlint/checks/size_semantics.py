"""Sizes the exporters cannot keep symbolic, and sizes that come from data.

Measured with torch 2.13 (probes quoted in each rule page; cases in bench/cases/):

- EXL123: ``torch.linspace`` / ``torch.logspace`` steps and ``torch.hann_window`` length taken
  from a dimension declared dynamic: torch.export (strict and non-strict) fails with
  'Constraints violated (h)! ... specialized it to be a constant', onnx-dynamo exports the
  dimension static (onnxruntime rejects other sizes); ``torch.eye(n)`` and ``torch.arange(n)``
  stay symbolic.
- EXL124: a branch on the size of a tensor whose first dimension depends on data (boolean-mask
  indexing, ``nonzero``, ``masked_select``, ``unique``): torch.export and onnx-dynamo fail with
  'Could not guard on data-dependent expression Eq(u0, 0)'; the legacy exporter bakes the branch.
- EXL126: ``F.one_hot`` without ``num_classes`` (or ``-1``): the class count is ``max + 1`` of the
  data; torch.export fails ('Could not extract specialized integer from data-dependent expression
  u0'), the legacy exporter writes a OneHot that onnxruntime rejects ("Input 'depth' must be
  non-negative").
- EXL405: sparse tensors in forward (``torch.sparse.mm``, ``.to_sparse()``): torch.export
  captures them; neither ONNX exporter translates them.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, callee_summary, register
from exportlint.checks.common import all_declared_dims, call_arg, snippet
from exportlint.checks.len_size import DYN, MAYBE, Dims
from exportlint.findings import Severity
from exportlint.semantics.imports import dotted
from exportlint.semantics.data_sized import data_size_read, names_at
from exportlint.semantics.kinds import SHAPE, SIZE_FACTORY_RESULT, TENSORISH
from exportlint.semantics.model import iter_nodes, literal_value

# ---------------------------------------------------------------------------------------
# sizes: which dimension a size expression reads
# ---------------------------------------------------------------------------------------


def _unpacked_shape(fn, name: str) -> list[tuple[cst.BaseExpression, int]]:
    """(tensor expression, dim) for `..., name, ... = x.shape` / `= x.size()` in fn."""
    got = fn.__dict__.get("_size_sem_unpack")
    if got is None:
        got = {}
        assign = cst.Assign
        for node in fn.nodes():  # (as in ``semantics.data_sized``)
            if type(node) is not assign or len(node.targets) != 1:
                continue
            t, v = node.targets[0].target, node.value
            if not isinstance(t, (cst.Tuple, cst.List)):
                continue
            src = None
            if isinstance(v, cst.Attribute) and v.attr.value == "shape":
                src = v.value
            elif (isinstance(v, cst.Call) and isinstance(v.func, cst.Attribute) and v.func.attr.value == "size"
                  and not v.args):
                src = v.func.value
            if src is None or any(isinstance(el, cst.StarredElement) for el in t.elements):
                continue
            for i, el in enumerate(t.elements):
                if isinstance(el.value, cst.Name):
                    got.setdefault(el.value.value, []).append((src, i))
        fn.__dict__["_size_sem_unpack"] = got
    return got.get(name, [])


def size_level(dims: Dims, fn, e: cst.BaseExpression, depth: int = 0) -> int:
    """DYN when the size expression reads a dimension declared dynamic, MAYBE when it is a size
    and the project's dynamic shapes are unknown, else 0."""
    if depth > 8:
        return 0
    lvl = dims.size(fn, e)
    if lvl:
        return lvl
    if isinstance(e, cst.Name):
        for src, i in _unpacked_shape(fn, e.value):
            if isinstance(src, cst.Name):
                declared = dims.declared(fn).get(src.value)
                if declared and i in declared:
                    return DYN
        from exportlint.checks.len_size import bound_values
        for v in bound_values(fn, e.value):
            lvl = max(lvl, size_level(dims, fn, v, depth + 1))
        if lvl:
            return lvl
    elif isinstance(e, cst.BinaryOperation):
        return max(size_level(dims, fn, e.left, depth + 1), size_level(dims, fn, e.right, depth + 1))
    if dims.mode is None and fn.kind(e) == SHAPE and _reads_dim0(fn, e):
        # dynamic shapes unknown: only the first (batch) dimension is presumed dynamic; a
        # channel or bin count read from `x.shape[1]` / `x.shape[-1]` is usually fixed
        return MAYBE
    return 0


def _reads_dim0(fn, e: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether a size expression reads the first dimension of a tensor (`x.shape[0]`,
    `x.size(0)`, `len(x)`, `b` of `b, c, h, w = x.shape`)."""
    if depth > 8:
        return False
    if isinstance(e, cst.Name):
        if any(i == 0 for _, i in _unpacked_shape(fn, e.value)):
            return True
        from exportlint.checks.len_size import bound_values
        return any(_reads_dim0(fn, v, depth + 1) for v in bound_values(fn, e.value))
    if isinstance(e, (cst.BinaryOperation,)):
        return _reads_dim0(fn, e.left, depth + 1) or _reads_dim0(fn, e.right, depth + 1)
    if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape":
        sl = e.slice[0].slice if len(e.slice) == 1 else None
        return isinstance(sl, cst.Index) and literal_value(sl.value) == 0
    if isinstance(e, cst.Call):
        f = e.func
        if isinstance(f, cst.Attribute) and f.attr.value == "size" and len(e.args) == 1:
            return literal_value(e.args[0].value) == 0
        if dotted(f) in ("len", "builtins.len") and len(e.args) == 1:
            return fn.kind(e.args[0].value) in TENSORISH
    return False


#: factory -> (position, keyword) of the size argument torch.export specialises (measured)
_SIZE_FACTORIES = {
    "torch.linspace": (2, "steps"),
    "torch.logspace": (2, "steps"),
    "torch.hann_window": (0, "window_length"),
}


def _size_reads(fn, e: cst.BaseExpression, params: set, depth: int = 0) -> set:
    """(parameter, dim) pairs a size expression of ``fn`` is computed from: ``x.shape[d]``,
    ``x.size(d)``, ``len(x)``, a name bound once to one (``size_source``), and arithmetic,
    ``int()`` / ``round()`` / ``math.floor`` / ``math.ceil`` / ``max`` / ``min`` of them
    (``h_len = (h + p // 2) // p``: still a function of ``h`` the export must keep symbolic)."""
    if depth > 6 or e is None:
        return set()
    from exportlint.checks.control_flow import _bound_once, size_source

    src = size_source(fn, e, params)
    if src is not None:
        return {src}
    if isinstance(e, cst.BinaryOperation):
        return _size_reads(fn, e.left, params, depth + 1) | _size_reads(fn, e.right, params, depth + 1)
    if isinstance(e, cst.UnaryOperation):
        return _size_reads(fn, e.expression, params, depth + 1)
    if isinstance(e, cst.Call) and dotted(e.func) in ("int", "round", "math.floor", "math.ceil", "max", "min"):
        out: set = set()
        for a in e.args:
            out |= _size_reads(fn, a.value, params, depth + 1)
        return out
    if isinstance(e, cst.Name):
        v = _bound_once(fn, e)
        if v is not e:
            return _size_reads(fn, v, params, depth + 1)
    return set()


def _factory_param_dims(fn) -> list[tuple[int, int]]:
    """(parameter index, dim) of a plain function's parameters whose dims its ``linspace`` /
    ``logspace`` steps or ``hann_window`` length are computed from."""
    ps = list(fn.node.params.posonly_params) + list(fn.node.params.params)
    names = [p.name.value for p in ps]
    out: set = set()
    for call in fn.calls:
        spec = _SIZE_FACTORIES.get(call.qualname or "")
        if spec is None:
            continue
        size = call_arg(call.node, spec[1], spec[0])
        if size is None or fn.kind(size) != SHAPE:
            continue
        for p, d in _size_reads(fn, size, set(names)):
            out.add((names.index(p), d))
    return sorted(out)


@callee_summary(SIZE_FACTORY_RESULT)
def helper_size_factory(model, facts) -> str:
    """"i:d,..." when ``facts`` (a root of another file's call, a plain function) takes
    ``linspace`` / ``logspace`` steps or a ``hann_window`` length from dim d of its i-th
    parameter (what ``SIZE_FACTORY_RESULT`` tells the caller), else ""."""
    if facts is None or facts.cls is not None:
        return ""
    return ",".join(f"{i}:{d}" for i, d in _factory_param_dims(facts))


@register
class SizeFactoryDynamic(Rule):
    code = "EXL123"
    name = "size-factory-dynamic-dim"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo")
    summary = "torch.linspace / logspace steps or hann_window length from a dynamic dimension (specialised)."

    def check(self, ctx):
        rets = ctx.model.call_returns
        if rets:
            self._at_calls(ctx, rets)
        if not any(q in ctx.text for q in ("linspace", "logspace", "hann_window")):
            return ()
        dims = None
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ""
                spec = _SIZE_FACTORIES.get(q)
                if spec is None:
                    continue
                size = call_arg(call.node, spec[1], spec[0])
                if size is None or fn.kind(size) != SHAPE:
                    continue
                if dims is None:
                    dims = Dims(ctx)
                    if dims.mode is False:
                        return ()
                level = size_level(dims, fn, size)
                if not level:
                    continue
                name = q.rsplit(".", 1)[-1]
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` takes its {spec[1]} from a dimension that "
                    f"{'is declared' if level == DYN else 'may be'} dynamic (`{snippet(ctx, size)}`): torch.export "
                    f"cannot keep `{name}`'s {spec[1]} symbolic and fails with 'Constraints violated ... specialized it "
                    "to be a constant'; onnx-dynamo exports that dimension static (measured, torch 2.13). Build it "
                    "from `torch.arange`, which stays symbolic: `start + torch.arange(n, device=x.device) * "
                    "((end - start) / (n - 1))`.",
                    severity=None if level == DYN else Severity.WARNING,
                )
        return ()


    def _at_calls(self, ctx, rets) -> None:
        """A call from ``forward`` into a function of another file that takes the steps of a
        ``linspace`` (``logspace``, a ``hann_window`` length) from dim d of its i-th parameter
        (``SIZE_FACTORY_RESULT``), handing it a forward input whose dim d is declared dynamic.
        Measured (torch 2.13, held-out bench/cases/pkg_flux_img_ids_linspace, from
        https://github.com/Comfy-Org/ComfyUI/pull/5490; bench/labels/probes_cases18 ``l_*``):
        torch.export specialises the dim (strict and non-strict: a guard "(1 + x.size()[2]) // 2
        == 4" fails at another size, or "Constraints violated"), onnx-dynamo exports it static and
        onnxruntime fails at another size, located at this call; fixed shapes pass."""
        from exportlint.semantics.data_sized import call_key

        for fn in ctx.model.functions:
            if fn.cls is None or fn.node.name.value != "forward":
                continue
            decl = None
            for site in fn.calls:
                key = call_key(fn, site)
                got = rets.get(key + SIZE_FACTORY_RESULT) if key else None
                if not got:
                    continue
                if decl is None:
                    decl = all_declared_dims(ctx, fn.cls.name)
                if not decl:
                    break
                pos = [a.value for a in site.node.args if a.keyword is None and not a.star]
                hit = None
                for item in got.split(","):
                    i, _, d = item.partition(":")
                    if not (i.isdigit() and d.isdigit()) or int(i) >= len(pos):
                        continue
                    arg = pos[int(i)]
                    if isinstance(arg, cst.Name) and int(d) in decl.get(arg.value, ()):
                        hit = (arg.value, int(d))
                        break
                if hit is None:
                    continue
                callee = (site.qualname or key).rsplit(".", 1)[-1]
                ctx.report(
                    site.node,
                    f"`{callee}(...)` (another file) takes `torch.linspace` steps (a `logspace` / `hann_window` "
                    f"size) from dim {hit[1]} of `{hit[0]}`, declared dynamic: torch.export cannot keep those steps "
                    "symbolic and specialises the dimension (a guard or 'Constraints violated' at another size), "
                    "and onnx-dynamo exports it static, failing at this call at another size (measured, torch "
                    "2.13). Build the values from `torch.arange` in the helper, which stays symbolic: "
                    "`start + torch.arange(n, device=x.device) * ((end - start) / (n - 1))`.",
                )


# ---------------------------------------------------------------------------------------
# EXL124: sizes that come from data
# ---------------------------------------------------------------------------------------

def data_size_branch(ctx, fn, br) -> Optional[cst.BaseExpression]:
    """For EXL111: the data-dependent size read a branch tests (reported by EXL124 instead)."""
    if br.construct not in ("if", "elif", "ifexp"):
        return None
    dds = names_at(ctx.model, fn, br.node)
    if not dds:
        return None
    return data_size_read(fn, br.node, dds)


@register
class DataSizeBranch(Rule):
    code = "EXL124"
    name = "branch-on-data-dependent-size"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo")
    summary = "A branch on the size of a tensor whose length depends on data (mask indexing, nonzero, unique)."

    def check(self, ctx):
        for fn in ctx.model.functions:
            if not fn.branches:
                continue
            for br in fn.branches:
                read = data_size_branch(ctx, fn, br)
                if read is None:
                    continue
                if fn.checked_names and any(isinstance(x, cst.Name) and x.value in fn.checked_names
                                            for x in iter_nodes(br.node)):
                    continue  # bounded with torch._check*
                ctx.report(
                    br.node,
                    f"branch on `{snippet(ctx, read)}`, the size of a tensor whose length depends on tensor data "
                    "(boolean-mask indexing, `nonzero`, `masked_select` or `unique` upstream): torch.export and "
                    "onnx-dynamo fail with 'Could not guard on data-dependent expression Eq(u0, 0)', and the legacy "
                    "exporter bakes the branch the example takes (measured, torch 2.13). Compute one result for "
                    "every size (the ops before already handle an empty tensor), or use `torch.cond`.",
                )
        return ()


# ---------------------------------------------------------------------------------------
# EXL126: one_hot with the class count taken from the data
# ---------------------------------------------------------------------------------------

_ONE_HOT = ("torch.nn.functional.one_hot", "torch._C._nn.one_hot")


@register
class OneHotInferredClasses(Rule):
    code = "EXL126"
    name = "one-hot-inferred-classes"
    severity = Severity.ERROR
    summary = "F.one_hot without num_classes: the output size is max(labels) + 1, read from the data."

    def check(self, ctx):
        if "one_hot" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            for call in fn.calls:
                if (call.qualname or "") not in _ONE_HOT:
                    continue
                labels = call_arg(call.node, "tensor", 0)
                if labels is None or fn.kind(labels) not in TENSORISH:
                    continue
                n = call_arg(call.node, "num_classes", 1)
                if n is not None and literal_value(n) != -1:
                    continue
                if any(a.star for a in call.node.args):
                    continue
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` infers the number of classes from the data (`max + 1`), so the "
                    "output shape depends on tensor values: torch.export and onnx-dynamo fail ('Could not extract "
                    "specialized integer from data-dependent expression u0'), and the legacy exporter writes a "
                    "OneHot that onnxruntime rejects (\"Input 'depth' must be non-negative\") (measured, torch "
                    "2.13). Pass `num_classes=` (the vocabulary or class count).",
                )
        return ()


# ---------------------------------------------------------------------------------------
# EXL405: sparse tensors in forward
# ---------------------------------------------------------------------------------------

_SPARSE_FUNCS = frozenset({"torch.sparse.mm"})
#: (`t.to_sparse()` is in the op table: EXL401)
_SPARSE_METHODS: frozenset = frozenset()


@register
class SparseInForward(Rule):
    code = "EXL405"
    name = "sparse-tensor-in-forward"
    severity = Severity.ERROR
    exporters = ("onnx-dynamo", "onnx-legacy")
    summary = "torch.sparse.mm in forward: neither ONNX exporter translates sparse tensors."

    def check(self, ctx):
        if "sparse" not in ctx.text:
            return ()
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ""
                f = call.node.func
                if q in _SPARSE_FUNCS:
                    pass
                elif (isinstance(f, cst.Attribute) and f.attr.value in _SPARSE_METHODS
                      and call.receiver_kind in TENSORISH):
                    pass
                else:
                    continue
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` works on a sparse tensor: torch.export captures it, but neither "
                    "ONNX exporter translates sparse layouts (legacy: \"Exporting the operator 'aten::_sparse_mm' to "
                    "ONNX opset version 20 is not supported\"; dynamo: no translation for aten._sparse_addmm / "
                    "aten._to_sparse) (measured, torch 2.13). For ONNX, use a dense matrix (`adj.to_dense()` once, "
                    "registered as a buffer) or a gather/`index_add` over the edge list.",
                )
        return ()
