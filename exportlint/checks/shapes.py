"""EXL112-EXL115: sizes that become constants or specialise a dynamic dimension.

Every claim here was measured with torch 2.13 (the rule pages quote the messages):

- EXL112: a tensor built from a Python list of sizes (legacy tracer and ``jit.trace`` bake the
  list), from ``torch.as_tensor(size)`` (torch.export specialises the dim), or from a size
  turned into a float (``float(n)``, ``math.sqrt(n)``: non-strict specialises, legacy bakes).
  ``torch.tensor(x.shape[0])``, ``torch.tensor(n // 2)`` and ``torch.full((), n)`` export with
  every exporter and are not reported.
- EXL113: adaptive pooling to an output size other than 1 (global pooling always exports).
- EXL114: ``chunk`` / ``split`` of a forward input along a dimension that may be dynamic.
- EXL115: an RNN module (LSTM / GRU / RNN) in forward: torch.export specialises the sequence
  length.

EXL113-EXL115 follow the project's dynamic-shape declarations (``declares_dynamic``): silent
for a project that exports fixed shapes.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import (
    assignments_in_scope,
    call_arg,
    carried_dims,
    carried_sizes,
    carried_statics,
    declared_dims,
    declares_dynamic,
    dynamic_by_reach_only,
    export_dims,
    snippet,
    torch_submodule_calls,
)
from exportlint.findings import Severity
from exportlint.semantics.imports import dotted
from exportlint.semantics.kinds import CONST, SHAPE, TENSORISH
from exportlint.semantics.model import iter_nodes, literal_value
from exportlint.semantics.nodes import iter_statements, names_in

_TENSOR_FROM_DATA = frozenset({"torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor",
                               "torch.LongTensor", "torch.IntTensor", "torch.asarray"})
_FLOAT_CONVERSIONS = ("float", "builtins.float")


def _severity(mode: Optional[bool]) -> Optional[Severity]:
    """Rule severity when the project declares dynamic dims; a warning when unknown."""
    return None if mode else Severity.WARNING


def local_values(fn) -> dict[str, list[cst.BaseExpression]]:
    out: dict[str, list[cst.BaseExpression]] = {}
    for name, value, _ in assignments_in_scope(fn.node):
        out.setdefault(name, []).append(value)
    plain = set(out)
    for name, value in _parallel_assignments(fn.node.body):
        if name not in plain:  # names also assigned plainly keep what they had (no new ambiguity)
            out.setdefault(name, []).append(value)
    return out


def _parallel_assignments(node: cst.CSTNode):
    """(name, value) of `a, b = e1, e2` statements of a function (not of nested defs): each name
    gets its own value (`new_h, new_w = math.ceil(H / p) * p, math.ceil(W / p) * p`)."""
    for child in iter_statements(node, into_defs=False):  # (an assignment is a statement)
        if type(child) is cst.Assign and len(child.targets) == 1:  # (exact type: no ABC check)
            t, v = child.targets[0].target, child.value
            if (isinstance(t, (cst.Tuple, cst.List)) and isinstance(v, (cst.Tuple, cst.List))
                    and len(t.elements) == len(v.elements)
                    and not any(isinstance(el, cst.StarredElement) for el in (*t.elements, *v.elements))):
                for te, ve in zip(t.elements, v.elements):
                    if isinstance(te.value, cst.Name):
                        yield te.value.value, ve.value


def _resolve(e: cst.BaseExpression, values: dict) -> cst.BaseExpression:
    """A name assigned exactly once in the function -> its value (one step)."""
    if isinstance(e, cst.Name) and len(values.get(e.value, ())) == 1:
        return values[e.value][0]
    return e


def _has_float_conversion(fn, e: cst.BaseExpression, values: dict, depth: int = 0) -> bool:
    """Whether a size reaches `e` through float() / math.* / numpy (a Python float)."""
    for n in iter_nodes(e):
        if isinstance(n, cst.Call):
            q = fn.imports.resolve(n.func) or dotted(n.func) or ""
            if q in _FLOAT_CONVERSIONS or q.startswith(("math.", "numpy.")):
                if any(fn.kind(a.value) == SHAPE for a in n.args):
                    return True
        elif isinstance(n, cst.Name) and depth < 2 and len(values.get(n.value, ())) == 1 and n is not e:
            if _has_float_conversion(fn, values[n.value][0], values, depth + 1):
                return True
    if isinstance(e, cst.Name) and depth < 2 and len(values.get(e.value, ())) == 1:
        return _has_float_conversion(fn, values[e.value][0], values, depth + 1)
    return False


#: legacy typed constructors: called with ints (or a torch.Size) they allocate that shape
_LEGACY_CTORS = frozenset({"torch.Tensor", "torch.FloatTensor", "torch.DoubleTensor", "torch.HalfTensor",
                           "torch.LongTensor", "torch.IntTensor", "torch.ByteTensor", "torch.BoolTensor",
                           "torch.ShortTensor", "torch.CharTensor", "torch.BFloat16Tensor"})


def _legacy_ctor_shape(fn, call, q: str) -> Optional[str]:
    """The replacement to suggest when ``call`` allocates a tensor whose shape is given by sizes
    of a tensor through a legacy constructor (``torch.FloatTensor(n, 4)``,
    ``torch.FloatTensor(torch.Size(sizes))``, ``x.new(n, 4)``); else None. A list argument is
    data (``torch.FloatTensor([h, w])``: the branch below)."""
    node = call.node
    if q in _LEGACY_CTORS:
        suggest = "torch.zeros(...)"
    elif call.method == "new" and call.receiver_kind in TENSORISH:
        suggest = "x.new_zeros(...)"
    else:
        return None
    args = node.args
    if not args or any(a.keyword is not None or a.star for a in args):
        return None
    if len(args) == 1:
        a = args[0].value
        if (isinstance(a, cst.Call) and (fn.imports.resolve(a.func) or dotted(a.func)) == "torch.Size"
                and len(a.args) == 1 and not a.args[0].star):
            values = local_values(fn)
            inner = _resolve(a.args[0].value, values)
            return suggest if _size_sequence(fn, inner) or _size_sequence(fn, a.args[0].value) else None
        if isinstance(a, (cst.List, cst.Tuple)):
            return None
    for a in args:
        # a list anywhere in an argument (`[n] * b`, `[t.shape for t in ts]`) is data, not a shape
        if any(isinstance(n, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp, cst.Set, cst.Dict))
               for n in iter_nodes(a.value)):
            return None
    kinds = [fn.kind(a.value) for a in args]
    if any(k == SHAPE for k in kinds) and all(k in (SHAPE, CONST) or literal_value(a.value) is not None
                                              for k, a in zip(kinds, args)):
        return suggest
    return None


def _size_sequence(fn, e: cst.BaseExpression) -> bool:
    """`x.shape`, `x.size()`, `x.shape[-2:]`, `list(x.shape)`, `[w, h]`: several sizes at once."""
    if isinstance(e, (cst.List, cst.Tuple)):
        return any(isinstance(el, cst.Element) and fn.kind(el.value) == SHAPE for el in e.elements)
    if isinstance(e, cst.Attribute) and e.attr.value == "shape":
        return fn.kind(e.value) in TENSORISH
    if isinstance(e, cst.Call):
        f = e.func
        if isinstance(f, cst.Attribute) and f.attr.value == "size" and not e.args:
            return fn.kind(f.value) in TENSORISH
        if isinstance(f, cst.Name) and f.value in ("list", "tuple") and len(e.args) == 1:
            return _size_sequence(fn, e.args[0].value)
    if isinstance(e, cst.Subscript) and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Slice):
        return _size_sequence(fn, e.value)
    return False


@register
class SizeToTensor(Rule):
    code = "EXL112"
    name = "size-to-tensor"
    severity = Severity.ERROR
    summary = "A tensor built from a Python list of sizes, as_tensor(size), or a size turned into a float."

    def check(self, ctx):
        mode = declares_dynamic(ctx)
        if mode is False:
            return ()  # fixed shapes: the baked sizes are the only sizes
        for fn in ctx.model.functions:
            values: Optional[dict] = None
            for call in fn.calls:
                q = call.qualname or ""
                shaped = (_legacy_ctor_shape(fn, call, q) if q in _LEGACY_CTORS or call.method == "new"
                          else None)
                if shaped is not None:
                    # measured (torch 2.13, bench/labels/probes_cases16): `torch.FloatTensor(n, 4)`,
                    # `torch.FloatTensor(torch.Size(sizes))`, `torch.Tensor(n, 4)` and `x.new(n, 4)`
                    # with a size of a dynamic dim: the legacy tracer records an uninitialised
                    # tensor of the example's shape (no TracerWarning), so the ONNX model fails or
                    # is wrong at other sizes; strict, non-strict and onnx-dynamo pass and match;
                    # `torch.zeros(n, 4)` and constant sizes pass everywhere
                    ctx.report(
                        call.node,
                        f"legacy tensor constructor given sizes (`{snippet(ctx, call.node)}`): the legacy ONNX "
                        "tracer records a tensor of the example input's shape, so the exported model is wrong "
                        "or rejected at other input sizes (torch.export and onnx-dynamo trace it). Use a factory "
                        f"that records the size: `{shaped}`.",
                        exporters=("onnx-legacy",),
                        severity=_severity(mode),
                    )
                    continue
                if q not in _TENSOR_FROM_DATA or not call.node.args:
                    continue
                data = call.node.args[0]
                if data.keyword is not None or data.star:
                    continue
                if values is None:
                    values = local_values(fn)
                src = _resolve(data.value, values)
                exps: list[str] = []
                why = ""
                grown = (src is not data.value and isinstance(src, (cst.List, cst.Tuple)) and not src.elements
                         and fn.kind(data.value) == SHAPE)  # `shapes = []` grown with sizes (`.append((h, w))`)
                if grown or _size_sequence(fn, src) or (src is not data.value and _size_sequence(fn, data.value)):
                    why = "a Python list of sizes is recorded as a constant by the legacy tracer"
                    exps.append("onnx-legacy")
                    if q == "torch.as_tensor":
                        exps = ["export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy"]
                        why += "; torch.export specialises the dimensions"
                elif fn.kind(data.value) == SHAPE:
                    if q == "torch.as_tensor":
                        exps = ["export-strict", "export-nonstrict", "onnx-dynamo"]
                        why = "torch.export specialises the dimension (`torch.tensor(n)` keeps it symbolic)"
                    elif _has_float_conversion(fn, data.value, values):
                        exps = ["export-nonstrict", "onnx-dynamo", "onnx-legacy"]
                        why = ("a size turned into a Python float is a constant for the legacy tracer and "
                               "specialises the dimension for torch.export non-strict")
                if not exps:
                    continue
                ctx.report(
                    call.node,
                    f"tensor built from sizes (`{snippet(ctx, call.node)}`): {why}, so the exported model is "
                    "wrong or rejected at other input sizes. Build it from one int at a time: "
                    "`torch.tensor(n)` and `torch.full((), n)` keep the size symbolic with every exporter; do "
                    "float maths on that tensor (`torch.tensor(n).float().sqrt()`), and `torch.stack` pieces.",
                    exporters=tuple(exps),
                    severity=_severity(mode),
                )
        return ()


_ADAPTIVE_FUNCS = {f"torch.nn.functional.adaptive_{k}_pool{d}d" for k in ("avg", "max") for d in (1, 2, 3)}
_ADAPTIVE_MODULES = {f"torch.nn.Adaptive{k}Pool{d}d" for k in ("Avg", "Max") for d in (1, 2, 3)} | {
    f"torch.nn.modules.pooling.Adaptive{k}Pool{d}d" for k in ("Avg", "Max") for d in (1, 2, 3)}


def _output_size(call: cst.Call, index: int) -> object:
    pos = [a for a in call.args if a.keyword is None and not a.star]
    if index < len(pos):
        return literal_value(pos[index].value)
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "output_size":
            return literal_value(a.value)
    return None


def _non_global(v: object) -> bool:
    """An output size known to be other than 1 everywhere (None entries keep the input size)."""
    vals = list(v) if isinstance(v, (list, tuple)) else [v]
    return any(isinstance(x, int) and not isinstance(x, bool) and x != 1 for x in vals)


@register
class AdaptivePoolToSize(Rule):
    code = "EXL113"
    name = "adaptive-pool-to-size"
    severity = Severity.WARNING
    exporters = ("onnx-dynamo", "onnx-legacy")
    summary = "Adaptive pooling to an output size other than 1: legacy needs static divisible sizes."

    def check(self, ctx):
        mode = declares_dynamic(ctx)
        exps = ("onnx-legacy",) if mode is False else ("onnx-dynamo", "onnx-legacy")
        for fn in ctx.model.functions:
            for call in fn.calls:
                if (call.qualname or "") in _ADAPTIVE_FUNCS and _non_global(_output_size(call.node, 1)):
                    self._report(ctx, call.node, exps)
                elif (call.qualname or "") == "torch.nn.functional.interpolate":
                    area = _area_exporters(call.node, mode)
                    if area:
                        self._report(ctx, call.node, area)
        reads: dict[str, set[str]] = {}
        for fn in ctx.model.functions:
            if fn.cls is not None:
                reads.setdefault(fn.cls.name, set()).update(fn.self_attr_reads)
        for cls in ctx.model.classes.values():
            used = reads.get(cls.name)
            if not used:
                continue
            for attr in cls.attrs.values():
                v = attr.value
                if attr.what != "submodule" or attr.name not in used or not isinstance(v, cst.Call):
                    continue
                q = ctx.model.imports.resolve(v.func) or ""
                if q in _ADAPTIVE_MODULES and _non_global(_output_size(v, 0)):
                    # reported where a method calls it (the line the exporters fail on), the
                    # constructor named in the message; at the constructor when no call is seen
                    use = _first_self_call(ctx, cls, attr.name)
                    self._report(ctx, v if use is None else use, exps,
                                 built=None if use is None else f"self.{attr.name} = {snippet(ctx, v)}")
                elif q in ("torch.nn.ModuleList", "torch.nn.Sequential") and _adaptive_list(ctx, cls, v):
                    # a list of pools (pyramid pooling): reported where forward reads the list
                    use = _first_self_read(ctx, cls, attr.name)
                    if use is not None:
                        self._report(ctx, use, exps)
        return ()

    def _report(self, ctx, node, exps, built=None):
        ctx.report(
            node,
            f"adaptive pooling to a fixed size (`{built or snippet(ctx, node)}`): the legacy ONNX exporter supports it "
            "only for static input sizes divisible by the output size ('input size not accessible' with a "
            "dynamic H/W, 'output size that are not factor of input size' otherwise)"
            + ("; onnx-dynamo exports a dynamic H/W but computes wrong values at other sizes" if "onnx-dynamo" in exps
               else "")
            + ". Global pooling (`output_size=1`, `x.mean((-2, -1), keepdim=True)`) exports everywhere; "
            "otherwise pool with a fixed kernel/stride computed for the input size you export.",
            exporters=exps,
        )


def _area_exporters(call: cst.Call, mode: Optional[bool]) -> tuple[str, ...]:
    """`F.interpolate(x, ..., mode="area")` is adaptive average pooling to the output size:
    the exporters it breaks like an adaptive pool to a size other than 1. With `scale_factor`
    the legacy exporter fails whatever the shapes (its op-table record, EXL401, says so)."""
    m = call_arg(call, "mode", 3)
    if m is None or literal_value(m) != "area":
        return ()
    size = call_arg(call, "size", 1)
    if size is not None:
        if not _non_global(literal_value(size)):
            return ()
        return ("onnx-legacy",) if mode is False else ("onnx-dynamo", "onnx-legacy")
    scale = literal_value(call_arg(call, "scale_factor", 2)) if call_arg(call, "scale_factor", 2) is not None else None
    if scale is None or scale == 1 or mode is False:
        return ()
    return ("onnx-dynamo",)


def _init_defaults(cls) -> dict[str, object]:
    """Literal defaults of the class's ``__init__`` parameters."""
    out: dict[str, object] = {}
    body = getattr(getattr(cls.node, "body", None), "body", ())
    for st in body:
        if isinstance(st, cst.FunctionDef) and st.name.value == "__init__":
            for p in list(st.params.params) + list(st.params.kwonly_params):
                if p.default is not None:
                    out[p.name.value] = literal_value(p.default)
    return out


def _adaptive_list(ctx, cls, v: cst.Call) -> bool:
    """``ModuleList([AdaptiveAvgPool2d(s) for s in (1, 2, 3, 6)])`` (the sizes a literal, or
    an ``__init__`` parameter's literal default) or a literal list of adaptive pools, with an
    output size other than 1."""
    if not v.args:
        return False
    inner = v.args[0].value
    if isinstance(inner, (cst.List, cst.Tuple)):
        elts = [el.value for el in inner.elements if isinstance(el, cst.Element)]
        return any(isinstance(e, cst.Call) and (ctx.model.imports.resolve(e.func) or "") in _ADAPTIVE_MODULES
                   and _non_global(_output_size(e, 0)) for e in elts)
    if not isinstance(inner, (cst.ListComp, cst.GeneratorExp)):
        return False
    elt, comp = inner.elt, inner.for_in
    if not isinstance(elt, cst.Call) or (ctx.model.imports.resolve(elt.func) or "") not in _ADAPTIVE_MODULES:
        return False
    pos = [a for a in elt.args if a.keyword is None and not a.star]
    size = pos[0].value if pos else next((a.value for a in elt.args if a.keyword is not None
                                          and a.keyword.value == "output_size"), None)
    if size is None:
        return False
    if not isinstance(size, cst.Name):
        return _non_global(literal_value(size))
    if comp.inner_for_in is not None or not isinstance(comp.target, cst.Name) or comp.target.value != size.value:
        return False
    it = comp.iter
    vals = literal_value(it)
    if isinstance(it, cst.Name):
        vals = _init_defaults(cls).get(it.value)
    return isinstance(vals, (list, tuple)) and _non_global(tuple(vals))


def _first_self_call(ctx, cls, name: str):
    """The first call ``self.<name>(...)`` in a method of the class other than ``__init__``."""
    for fn in ctx.model.functions:
        if fn.cls is not cls or fn.node.name.value == "__init__":
            continue
        for n in fn.nodes():
            if (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == name
                    and isinstance(n.func.value, cst.Name) and n.func.value.value == "self"):
                return n
    return None


def _first_self_read(ctx, cls, name: str):
    for fn in ctx.model.functions:
        if fn.cls is not cls:
            continue
        for n in fn.nodes():
            if (isinstance(n, cst.Attribute) and n.attr.value == name and isinstance(n.value, cst.Name)
                    and n.value.value == "self"):
                return n
    return None


def _dim_arg(call: cst.Call, pos_index: int) -> object:
    pos = [a for a in call.args if a.keyword is None and not a.star]
    if pos_index < len(pos):
        return literal_value(pos[pos_index].value)
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "dim":
            return literal_value(a.value)
    return 0


@register
class SplitDynamicDim(Rule):
    code = "EXL114"
    name = "split-dynamic-dim"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo")
    summary = "chunk/split of a forward input along its batch (or a declared dynamic) dimension."

    def check(self, ctx):
        mode = declares_dynamic(ctx)
        if mode is False:
            return ()
        for fn in ctx.model.functions:
            if fn.why not in ("forward", "export-call"):
                continue
            if not any((c.qualname or "").rsplit(".", 1)[-1] in ("chunk", "split", "tensor_split") for c in fn.calls):
                continue  # (what follows only looks at these calls)
            dyn = declared_dims(ctx, fn.cls.name if fn.cls is not None else None)
            params = [p.name.value for p in list(fn.node.params.posonly_params) + list(fn.node.params.params)]
            inputs = _batch_first_names(ctx, fn, {p for p in params if fn.env.get(p) in TENSORISH})
            for call in fn.calls:
                q = call.qualname or ""
                name = q.rsplit(".", 1)[-1]
                if name not in ("chunk", "split", "tensor_split"):
                    continue
                if q.startswith("torch.Tensor.") and call.receiver_kind in TENSORISH:
                    recv = call.node.func.value if isinstance(call.node.func, cst.Attribute) else None
                    dim = _dim_arg(call.node, 1)
                elif q in ("torch.chunk", "torch.split", "torch.tensor_split") and call.node.args:
                    recv = call.node.args[0].value
                    dim = _dim_arg(call.node, 2)
                else:
                    continue
                if not isinstance(recv, cst.Name) or recv.value not in inputs or not isinstance(dim, int):
                    continue
                pos = [a for a in call.node.args if a.keyword is None and not a.star]
                k = 0 if q.startswith("torch.Tensor.") else 1
                sections = pos[k].value if k < len(pos) else None
                if sections is None:  # torch.chunk(x, chunks=2, dim=0)
                    sections = next((a.value for a in call.node.args if a.keyword is not None and a.keyword.value in (
                        "chunks", "split_size_or_sections", "split_size", "sections", "indices_or_sections")), None)
                # a count or one piece size (measured); a list of sizes, or sizes from data, is
                # another matter (EXL104 / EXL102)
                if sections is None or isinstance(sections, (cst.List, cst.Tuple)) or fn.kind(sections) not in (CONST, SHAPE):
                    continue
                declared = dyn.get(recv.value, set())
                if recv.value not in params and dim == 0 and any(0 in dyn.get(p, ()) for p in params):
                    declared = {0}  # computed batch-first from an input whose batch is declared dynamic
                if dim in declared:
                    sev = None
                elif dim == 0:
                    sev = _severity(mode) if not declared else Severity.WARNING
                else:
                    continue
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` splits input `{recv.value}` along dim {dim} into a fixed number "
                    "of pieces: with that dimension dynamic torch.export fails ('Constraints violated ... Not all "
                    "values of ... satisfy the generated guard') and onnx-dynamo exports it static. Split a "
                    "static dimension, or keep the pieces as one batched tensor.",
                    severity=sev,
                )
        return ()


_RNN_MODULES = {f"torch.nn.{n}" for n in ("LSTM", "GRU", "RNN")} | {
    f"torch.nn.modules.rnn.{n}" for n in ("LSTM", "GRU", "RNN")}

#: methods and functional ops that keep a tensor's batch dimension first
_KEEP_METHODS = frozenset("to float half double bfloat16 contiguous clone detach relu sigmoid tanh exp abs neg sqrt "
                          "softmax log_softmax type_as masked_fill clamp mul add sub div".split())
_KEEP_F = frozenset("relu gelu silu elu leaky_relu sigmoid tanh softmax log_softmax dropout layer_norm group_norm "
                    "normalize conv1d conv2d conv3d linear interpolate pad batch_norm".split())


def _keeps_batch(ctx, fn, v: cst.BaseExpression, bf: set) -> bool:
    if isinstance(v, cst.Name):
        return v.value in bf
    if isinstance(v, cst.BinaryOperation):
        return _keeps_batch(ctx, fn, v.left, bf) or _keeps_batch(ctx, fn, v.right, bf)
    if isinstance(v, cst.Call):
        f = v.func
        args = [a.value for a in v.args if a.keyword is None and not a.star]
        if isinstance(f, cst.Attribute) and fn._is_self_attr(f):
            # self.block(x): a submodule (not an RNN, whose batch may come second)
            fact = fn.cls.find_attr(f.attr.value) if fn.cls is not None else None
            if fact is None or fact.what != "submodule" or not args:
                return False
            if isinstance(fact.value, cst.Call) and (ctx.model.imports.resolve(fact.value.func) or "") in _RNN_MODULES:
                return False
            return _keeps_batch(ctx, fn, args[0], bf)
        if isinstance(f, cst.Attribute) and f.attr.value in _KEEP_METHODS and fn.kind(f.value) in TENSORISH:
            return _keeps_batch(ctx, fn, f.value, bf)
        q = ctx.model.imports.resolve(f) or ""
        if q.startswith("torch.nn.functional.") and q.rsplit(".", 1)[-1] in _KEEP_F and args:
            return _keeps_batch(ctx, fn, args[0], bf)
        if q in ("torch.cat", "torch.concat", "torch.concatenate") and args and isinstance(args[0], (cst.List, cst.Tuple)):
            # any dim: a batch-first piece makes the result batch-first (dim 0: the batches add up)
            return any(isinstance(el, cst.Element) and _keeps_batch(ctx, fn, el.value, bf) for el in args[0].elements)
    return False


_TARGET_OWNERS = (cst.For, cst.CompFor, cst.AugAssign, cst.NamedExpr)


def _batch_first_names(ctx, fn, inputs: set) -> set:
    """Forward inputs and the names computed from them by batch-preserving steps (arithmetic,
    submodule calls, activations, dtype/device moves), in statement order; a name bound any
    other way (reshape, permute, tuple unpacking, a loop) is dropped."""
    bf = set(inputs)
    for n, v, _ in assignments_in_scope(fn.node):
        if _keeps_batch(ctx, fn, v, bf):
            bf.add(n)
        else:
            bf.discard(n)
    for node in fn.nodes():
        targets = []
        nt = type(node)  # (exact types: see nodes.iter_statements)
        if nt is cst.Assign:
            targets = [t.target for t in node.targets if not isinstance(t.target, cst.Name)]
        elif nt in _TARGET_OWNERS:
            targets = [node.target]
        for t in targets:
            for m in iter_nodes(t):
                if isinstance(m, cst.Name):
                    bf.discard(m.value)
    return bf


@register
class RnnDynamicSequence(Rule):
    code = "EXL115"
    name = "rnn-dynamic-sequence"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo")
    summary = "An LSTM/GRU/RNN module in forward: torch.export specialises the sequence length."

    def check(self, ctx):
        mode = declares_dynamic(ctx)
        if mode is False:
            return ()
        for _fn, call, _ctor, q in torch_submodule_calls(ctx, _RNN_MODULES):
            ctx.report(
                call.node,
                f"`{snippet(ctx, call.node)}` runs an nn.{q.rsplit('.', 1)[-1]}: torch.export specialises its "
                "sequence length ('You marked t as dynamic but your code specialized it to be a constant') "
                "and onnx-dynamo exports it static; a dynamic batch is fine. Export with a fixed sequence "
                "length, or use the legacy exporter (`dynamo=False`), which keeps it dynamic.",
                severity=_severity(mode),
            )
        return ()


_TO_INT = {"int": "int", "builtins.int": "int", "round": "round", "builtins.round": "round",
           "math.ceil": "math.ceil", "math.floor": "math.floor", "math.trunc": "math.trunc"}
_FLOAT_FUNCS = ("math.sqrt", "math.log", "math.log2", "math.exp", "math.pow")


def _floaty(fn, e: cst.BaseExpression, values: dict, depth: int = 0) -> bool:
    """A size made a Python float: true division, float(), math.sqrt/log/... of a size."""
    for n in iter_nodes(e):
        if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Divide) and fn.kind(n) == SHAPE:
            return True
        if isinstance(n, cst.Call):
            q = fn.imports.resolve(n.func) or dotted(n.func) or ""
            if (q in _FLOAT_CONVERSIONS or q in _FLOAT_FUNCS) and any(fn.kind(a.value) == SHAPE for a in n.args):
                return True
        if isinstance(n, cst.Name) and depth < 2 and len(values.get(n.value, ())) == 1:
            if _floaty(fn, values[n.value][0], values, depth + 1):
                return True
    return False


_FREE_SIZE_APIS = frozenset({"interpolate", "upsample", "upsample_bilinear", "upsample_nearest", "pad"})


def _reads_only(conv: cst.Call, names: set) -> bool:
    """Whether every value ``conv``'s arguments read is one of ``names`` (a literal aside), at
    least one: no other size, no shape read."""
    funcs = {id(m) for n in iter_nodes(conv) if isinstance(n, cst.Call) for m in iter_nodes(n.func)}
    attrs: set = set()
    seen = False
    for a in conv.args:
        for n in iter_nodes(a.value):
            if isinstance(n, (cst.Subscript, cst.Attribute)) and id(n) not in funcs:
                return False
            if isinstance(n, cst.Name) and id(n) not in funcs and id(n) not in attrs:
                if n.value not in names:
                    return False
                seen = True
    return seen


def _float_round_trips(fn, e: cst.BaseExpression, values: dict, depth: int = 0) -> list[tuple[str, cst.Call]]:
    """`round(x.shape[0] / 2)`, `int(h * 0.5)`, `math.ceil(n / p)` in e (the first one) and in the
    value of each name e reads: a size tuple `(new_h, new_w)` of names bound on two lines gives
    both (one expression, `(int(h / 2), int(w / 2))`, gives its first)."""
    out: list[tuple[str, cst.Call]] = []
    direct = False
    for n in iter_nodes(e):
        tn = type(n)  # (exact types: concrete libcst classes, none subclassed)
        if tn is cst.Call and n.args and not direct:
            q = fn.imports.resolve(n.func) or dotted(n.func) or ""
            name = _TO_INT.get(q)
            if name is not None and fn.kind(n) == SHAPE and _floaty(fn, n.args[0].value, values):
                out.append((name, n))
                direct = True
                continue
        if tn is cst.Name and depth < 2 and len(values.get(n.value, ())) == 1:
            out += _float_round_trips(fn, values[n.value][0], values, depth + 1)
    return out


@register
class SizeThroughFloat(Rule):
    code = "EXL116"
    name = "size-through-float"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict", "onnx-dynamo", "onnx-legacy")
    summary = "A size made a float and back (round(n / 2), int(math.sqrt(n))) used as a slice bound or size."

    def check(self, ctx):
        from exportlint.checks.control_flow import SIZE_APIS

        mode = declares_dynamic(ctx)
        if mode is False:
            return ()  # fixed shapes: the computed size is a constant anyway
        reach_only = bool(mode) and dynamic_by_reach_only(ctx)
        for fn in ctx.model.functions:
            values: Optional[dict] = None
            sites: list[cst.BaseExpression] = []
            for sub in fn.subscripts:
                if SHAPE in sub.index_kinds:
                    sites.append(sub.node)
            free: set[int] = set()  # sites that only set an output size (interpolate, pad)
            for call in fn.calls:
                q = call.qualname or ""
                if q.startswith("torch.") and q.rsplit(".", 1)[-1] in SIZE_APIS:
                    more = [a.value for a, k in zip(call.node.args, call.arg_kinds) if k == SHAPE]
                    sites.extend(more)
                    if q.rsplit(".", 1)[-1] in _FREE_SIZE_APIS:
                        free.update(id(m) for m in more)
            # each conversion once, free only when every site it reaches only sets an output size
            found: dict[int, list] = {}
            for site in sites:
                if values is None:
                    values = local_values(fn)
                for name, conv in _float_round_trips(fn, site, values):
                    got = found.setdefault(id(conv), [name, conv, True])
                    got[2] = got[2] and id(site) in free
            statics = carried_statics(ctx, fn) if found else set()
            carried: Optional[set] = None
            for name, conv, only_free in found.values():
                if statics and _reads_only(conv, statics):
                    continue  # sizes of a parameter's fixed shape (`int(math.sqrt(pos_embed.shape[1]))`)
                how = mode
                if mode and reach_only:
                    # dynamic only through a declared model reaching this file: an error when the
                    # conversion reads what the model carries here (a tensor with declared dims,
                    # a size of one), else a warning, as in a file with no declaration
                    if carried is None:
                        carried = set(carried_dims(ctx, fn)) | carried_sizes(ctx, fn)
                    if carried.isdisjoint(names_in(conv)):  # (`x` of `int(x.shape[2] / 2)`, `h` of `int(h / 2)`)
                        how = None
                self._report(ctx, how, only_free, name, conv, _binding_target(ctx, fn, conv))
        return ()

    @staticmethod
    def _report(ctx, mode, only_free: bool, name: str, conv: cst.Call, target=None) -> None:
        exps = ["export-strict", "export-nonstrict", "onnx-legacy"]
        if name in ("int", "round"):
            exps.insert(2, "onnx-dynamo")
        if only_free and name == "round":
            # measured (torch 2.13): round(h / 2) into F.interpolate(size=...) exports and
            # matches with strict and non-strict (named Dims and Dim.DYNAMIC); onnx-dynamo
            # fails to translate the symbolic `round` ('No ONNX function found for <built-in
            # function round>'), the legacy tracer on 'type Tensor doesn't define __round__'
            exps = ["onnx-dynamo", "onnx-legacy"]
        elif only_free:
            # measured (torch 2.13): strict traces int()/math.ceil of a symbolic float into
            # a free output size (F.interpolate(size=(int(h / 2), ...)), F.pad of a
            # math.ceil padding) and the program matches eager at other sizes; non-strict
            # fails ('Constraints violated (h, w)'). Tied to another size (view, reshape)
            # strict fails too.
            exps = ["export-nonstrict", "onnx-legacy"]
        if target is not None and "export-strict" in exps:
            # measured (bench/labels/probes_zoo17/probe_float_size_stmt.py, torch 2.13): non-strict
            # guards at the `int()` itself; strict keeps the value symbolic and fails where it is used,
            # located at the statement that binds it. In a statement spanning lines (`w = (a if
            # torch.jit.is_tracing() else int(...))`) those are two lines: strict gets its own finding
            exps = [e for e in exps if e != "export-strict"]
            ctx.report(
                target,
                f"`{snippet(ctx, target)}` is a size computed through a Python float (`{snippet(ctx, conv)}`): "
                "strict torch.export keeps it symbolic and fails where it is used ('Constraints violated ... "
                "satisfy the generated guard'), on a guard this statement's arithmetic makes. Use integer "
                "arithmetic on sizes: `n // 2`, `(n + p - 1) // p` for a ceiling.",
                exporters=("export-strict",),
                severity=_severity(mode),
            )
        ctx.report(
            conv,  # where the exporters stop (non-strict guard, legacy TracerWarning), not the use
            f"size computed through a Python float (`{snippet(ctx, conv)}`) used as a size or slice bound: "
            "with that dimension dynamic torch.export cannot keep it symbolic ('Constraints violated ... "
            "satisfy the generated guard'), the legacy tracer bakes it ('Converting a tensor to a Python "
            "integer/float') or fails (`round`: 'type Tensor doesn't define __round__ method'). Use integer "
            "arithmetic on sizes: `n // 2`, `(n + p - 1) // p` for a ceiling.",
            exporters=tuple(exps),
            severity=_severity(mode),
        )


def _binding_target(ctx, fn, conv: cst.Call) -> Optional[cst.Name]:
    """The name a `name = value` statement of fn binds when `conv` is that value (or a side of it: `a if
    torch.jit.is_tracing() else int(...)`) on a later line than the statement's first (a parenthesised
    multi-line value), else None. (A conversion inside another call, `x = x.view(\n int(h / f), ...)`,
    is no binding of the size: the statement is its use, not its producer.)"""
    from exportlint.semantics.nodes import assignments_in_scope

    for _name, value, stmt in assignments_in_scope(fn.node):
        if not (value is conv or (isinstance(value, cst.IfExp) and (value.body is conv or value.orelse is conv))):
            continue
        if not isinstance(stmt, cst.Assign) or len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, cst.Name):
            return None
        code = ctx.module.code_for_node(stmt)
        at = code.find(ctx.module.code_for_node(conv))
        return stmt.targets[0].target if at > 0 and "\n" in code[:at] else None
    return None


def _slice_offset(s: cst.Slice) -> Optional[int]:
    """How much a constant slice takes off a dimension: `1:` -> 1, `:-2` -> 2, `1:-1` -> 2."""
    lo = literal_value(s.lower) if s.lower is not None else 0
    hi = literal_value(s.upper) if s.upper is not None else None
    if s.step is not None:
        return None
    if not isinstance(lo, int) or isinstance(lo, bool) or lo < 0:
        return None
    off = lo
    if hi is not None:
        if not isinstance(hi, int) or isinstance(hi, bool) or hi >= 0:
            return None
        off += -hi
    return off or None


@register
class SliceNarrowsDynamicDim(Rule):
    code = "EXL117"
    name = "slice-narrows-dynamic-dim"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict")
    summary = "A constant slice (x[:, 1:]) of a dimension declared dynamic with a Dim that allows small sizes."

    def check(self, ctx):
        mode = declares_dynamic(ctx)
        if mode is False:
            return ()  # fixed shapes: no dim can be narrowed to 1
        # dims known (the file's torch.export calls, the project's declarations): an error on a
        # declared dim; else (no export call seen: a library, a model file exported elsewhere) a
        # warning on any dim of a forward input, which the user's Dim may declare dynamic
        known = bool(ctx.model.export_calls or getattr(ctx, "project_dynamic", None))
        cache: dict[Optional[str], tuple[dict, bool]] = {}
        for fn in ctx.model.functions:
            entry = fn.why in ("forward", "export-call")
            if not entry and (known or fn.node.name.value != "forward" or fn.cls is None or not fn.cls.is_module):
                continue  # (a module's forward first reached from another forward may be exported itself)
            if known:
                key = fn.cls.name if fn.cls is not None else None
                if key not in cache:
                    cache[key] = export_dims(ctx, key)
                dyn, bounded = cache[key]
                if not dyn or bounded:
                    continue
                sev = None
            else:
                params = [p.name.value for p in list(fn.node.params.posonly_params) + list(fn.node.params.params)]
                dyn = {p: None for p in params[1 if fn.cls is not None else 0:] if fn.env.get(p) in TENSORISH}
                if not dyn:
                    continue
                sev = Severity.WARNING
            self._scan(ctx, fn, dyn, sev, None)
            # a function of this file the forward hands an input to (transformers'
            # `shift_tokens_right(input_ids, ...)`): its slices of that parameter narrow the same dim
            # (measured, probes_zoo13/probe_shift_slice.py: strict and non-strict fail in the helper)
            for callee, call in fn.callee_sites:
                cf = ctx.model.facts_for(callee)
                if cf is None or cf is fn or callee.name.value == "forward":
                    continue
                handed = self._handed(fn, callee, call, dyn)
                if handed:
                    self._scan(ctx, cf, handed, sev, fn)
        return ()

    @staticmethod
    def _handed(fn, callee: cst.FunctionDef, call: cst.Call, dyn: dict) -> dict:
        """callee parameter -> the caller's dims, for the caller's (not rebound) inputs passed bare."""
        ps = [p.name.value for p in list(callee.params.posonly_params) + list(callee.params.params)]
        if ps and ps[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
            ps = ps[1:]
        rebound = {n for n, _v, _ in assignments_in_scope(fn.node)}
        out: dict = {}
        i = 0
        for a in call.args:
            if a.star:
                break
            name = a.value.value if isinstance(a.value, cst.Name) else None
            if a.keyword is None:
                target = ps[i] if i < len(ps) else None
                i += 1
            else:
                target = a.keyword.value if a.keyword.value in ps else None
            if target is not None and name in dyn and name not in rebound:
                out[target] = dyn[name]
        return out

    @staticmethod
    def _scan(ctx, fn, dyn: dict, sev, via) -> None:
        reassigned = {n for n, v, _ in assignments_in_scope(fn.node) if not isinstance(v, cst.BinaryOperation)}
        # dims unknown: a position the function also reads one literal element of (`thw[:, 0]` next
        # to `thw[:, 1:]`) holds fields of a record (a (N, 3) grid of t, h, w), a fixed size
        fields: set[tuple[str, int]] = set()
        if any(d is None for d in dyn.values()):
            for sub in fn.subscripts:
                b = sub.node.value
                if isinstance(b, cst.Name) and dyn.get(b.value, ()) is None:
                    for i, el in enumerate(sub.node.slice):
                        if isinstance(el.slice, cst.Index) and isinstance(el.slice.value, cst.Ellipsis):
                            break
                        if isinstance(el.slice, cst.Index) and isinstance(literal_value(el.slice.value), int):
                            fields.add((b.value, i))
        owner = (f"`{via.cls.name}.{via.node.name.value}`" if via.cls is not None else f"`{via.node.name.value}`") \
            if via is not None else None
        for sub in fn.subscripts:
            base = sub.node.value
            if not isinstance(base, cst.Name) or base.value in reassigned or base.value not in dyn:
                continue
            dims = dyn[base.value]
            if any(isinstance(el.slice, cst.Index) and isinstance(el.slice.value, cst.Name)
                   and el.slice.value.value == "None" for el in sub.node.slice):
                continue  # a new axis moves the positions off the tensor's dims: not followed
            for i, el in enumerate(sub.node.slice):
                sl = el.slice
                if isinstance(sl, cst.Index) and isinstance(sl.value, cst.Ellipsis):
                    break  # positions after `...` count from the end: not followed
                if dims is None and i == 0:
                    # dims unknown: dim 0 is a batch, or the length of a 1-d vector of offsets
                    # (`cu_seqlens[1:] - cu_seqlens[:-1]`) or of a tuple of layers, rarely
                    # declared with a Dim of the default range; only later dims are claimed
                    continue
                if dims is None and (base.value, i) in fields:
                    continue
                if isinstance(sl, cst.Slice) and (dims is None or i in dims):
                    off = _slice_offset(sl)
                    if off is None:
                        continue
                    what = f"`{base.value}`" + (f" (handed in by {owner})" if owner else "")
                    if dims is not None:
                        head = f"takes {off} off dim {i} of {what}, which an export call declares dynamic: torch.export then"
                    else:
                        head = (f"takes {off} off dim {i} of the input {what}: if an export declares that dim dynamic "
                                f"with a Dim that allows sizes below {off + 2} (the default range does), torch.export")
                    ctx.report(
                        sub.node,
                        f"`{snippet(ctx, sub.node)}` {head} needs that dim to stay above "
                        f"{off + 1} ('Not all values of ... satisfy the generated guard ((-{off}) + ...) != 1') "
                        f"and rejects the Dim's {'default ' if dims is not None else ''}range. Give the Dim a minimum "
                        f"(`Dim(..., min={off + 2})`) or use `Dim.AUTO`.",
                        severity=sev,
                    )
                    break
        cache: dict[Optional[str], tuple[dict, bool]] = {}
        for fn in ctx.model.functions:
            if fn.why not in ("forward", "export-call"):
                continue
            key = fn.cls.name if fn.cls is not None else None
            if key not in cache:
                cache[key] = export_dims(ctx, key)
            dyn, bounded = cache[key]
            if not dyn or bounded:
                continue
            reassigned = {n for n, v, _ in assignments_in_scope(fn.node) if not isinstance(v, cst.BinaryOperation)}
            for sub in fn.subscripts:
                base = sub.node.value
                if not isinstance(base, cst.Name) or base.value in reassigned or base.value not in dyn:
                    continue
                dims = dyn[base.value]
                for i, el in enumerate(sub.node.slice):
                    sl = el.slice
                    if isinstance(sl, cst.Index) and isinstance(sl.value, cst.Ellipsis):
                        break  # positions after `...` count from the end: not followed
                    if isinstance(sl, cst.Slice) and i in dims:
                        off = _slice_offset(sl)
                        if off is not None:
                            ctx.report(
                                sub.node,
                                f"`{snippet(ctx, sub.node)}` takes {off} off dim {i} of `{base.value}`, which an export "
                                "call declares dynamic: torch.export then needs that dim to stay above "
                                f"{off + 1} ('Not all values of ... satisfy the generated guard ((-{off}) + ...) != 1') "
                                f"and rejects the Dim's default range. Give the Dim a minimum "
                                f"(`Dim(..., min={off + 2})`) or use `Dim.AUTO`.",
                            )
                            break
        return ()
