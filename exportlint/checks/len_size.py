"""EXL120: ``len(t)`` of a tensor whose first dimension may be dynamic.

Measured with torch 2.13 (rules/EXL120.md): ``x.new_full((len(x),), 1.0)`` with ``x``'s dim 0
declared dynamic fails torch.export non-strict ("Constraints violated (b)! ... You marked b as
dynamic but your code specialized it to be a constant (5)"), onnx-dynamo exports the
dimension static, the legacy exporter bakes the example's size ("TracerWarning: Using len to
get tensor shape might cause the trace to be incorrect"); strict torch.export keeps it
symbolic, and ``x.shape[0]`` stays symbolic with all four.
"""

from __future__ import annotations


import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import (add_shapes_dict, assignments_in_scope, carried_dims, declared_dims,
                                      declares_dynamic, snippet, with_carried)
from exportlint.findings import Fix, FixSafety, Severity
from exportlint.semantics.imports import dotted
from exportlint.semantics.kinds import TENSORISH
from exportlint.semantics.model import iter_nodes, literal_value

DYN, MAYBE = 2, 1

#: tensor methods whose result keeps the receiver's first dimension
_KEEP_DIM0 = frozenset("float double half long int bool to type_as contiguous clone detach repeat flatten "
                       "sigmoid relu tanh exp abs neg sqrt mul add sub div clamp".split())
_LEN = ("len", "builtins.len")


def _params(fn) -> list[str]:
    ps = list(fn.node.params.posonly_params) + list(fn.node.params.params)
    names = [p.name.value for p in ps]
    return names[1:] if fn.self_name is not None and names and names[0] == fn.self_name else names


_CONTAINERS = ("list", "List", "tuple", "Tuple", "Sequence", "Iterable", "dict", "Dict")


def _container_annotated(fn, name: str) -> bool:
    """A parameter annotated as a container (`hidden_states: list[torch.Tensor]`): its len() is
    the number of items, a Python int."""
    ps = list(fn.node.params.posonly_params) + list(fn.node.params.params) + list(fn.node.params.kwonly_params)
    for p in ps:
        if p.name.value == name and p.annotation is not None:
            ann = p.annotation.annotation
            if isinstance(ann, cst.SimpleString):
                text = ann.value.strip("\'\"")
            else:
                text = dotted(ann.value if isinstance(ann, cst.Subscript) else ann) or ""
            for opt in ("Optional", "typing.Optional"):
                if text == opt and isinstance(ann, cst.Subscript) and ann.slice:
                    inner = ann.slice[0].slice
                    inner = inner.value if isinstance(inner, cst.Index) else None
                    text = dotted(inner.value if isinstance(inner, cst.Subscript) else inner) or "" if inner is not None else ""
            return text.split("[", 1)[0].rsplit(".", 1)[-1] in _CONTAINERS
    return False


def _bindings(fn) -> dict[str, list[cst.BaseExpression]]:
    """name -> the values it is bound to by `name = v` or by a parallel `a, b = v1, v2` (read once
    per function: the facts object keeps it)."""
    got = fn.__dict__.get("_len_size_bindings")
    if got is not None:
        return got
    out: dict[str, list[cst.BaseExpression]] = {}
    for n, v, _ in assignments_in_scope(fn.node):
        out.setdefault(n, []).append(v)
    for node in iter_nodes(fn.node.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            t, v = node.targets[0].target, node.value
            if isinstance(t, cst.Tuple) and isinstance(v, cst.Tuple) and len(t.elements) == len(v.elements):
                for te, ve in zip(t.elements, v.elements):
                    if isinstance(te.value, cst.Name):
                        out.setdefault(te.value.value, []).append(ve.value)
    fn.__dict__["_len_size_bindings"] = out
    return out


def bound_values(fn, name: str) -> list[cst.BaseExpression]:
    """The values a local is bound to by `name = v` or by a parallel `a, b = v1, v2`."""
    return _bindings(fn).get(name, [])


class Dims:
    def __init__(self, ctx):
        self.ctx = ctx
        self.mode = declares_dynamic(ctx)
        # an ExportDB-style module-level `dynamic_shapes = {"x": {0: batch}}` declares them too
        self.module_dims: dict[str, set] = {}
        for n, v, _ in assignments_in_scope(ctx.module):
            if n == "dynamic_shapes" and isinstance(v, cst.Dict):
                add_shapes_dict(self.module_dims, v)
        if self.mode is None and any(self.module_dims.values()):
            self.mode = True
        self._declared: dict = {}

    def declared(self, fn) -> dict[str, set]:
        key = fn.cls.name if fn.cls is not None else None
        if key not in self._declared:
            out = declared_dims(self.ctx, key)
            for p, d in self.module_dims.items():
                out.setdefault(p, set()).update(d)
            self._declared[key] = out
        # with the dims a declared model hands this very function (semantics/dim_flow.py)
        return with_carried(self.ctx, fn, self._declared[key])

    # a size: x.shape[d] / x.size(d) of a forward input with d declared dynamic
    def size(self, fn, e: cst.BaseExpression, depth: int = 0) -> int:
        if depth > 10:
            return 0
        if isinstance(e, cst.Name):
            return max((self.size(fn, v, depth + 1) for v in bound_values(fn, e.value)), default=0)
        if isinstance(e, (cst.BinaryOperation,)):
            return max(self.size(fn, e.left, depth + 1), self.size(fn, e.right, depth + 1))
        if isinstance(e, cst.UnaryOperation):
            return self.size(fn, e.expression, depth + 1)
        base = dim = None
        if isinstance(e, cst.Subscript) and isinstance(e.value, cst.Attribute) and e.value.attr.value == "shape":
            if len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index):
                base, dim = e.value.value, literal_value(e.slice[0].slice.value)
        elif isinstance(e, cst.Call):
            if isinstance(e.func, cst.Attribute) and e.func.attr.value == "size" and e.args:
                base, dim = e.func.value, literal_value(e.args[0].value)
            elif dotted(e.func) in ("int", "round", "math.ceil", "math.floor") and e.args:
                return self.size(fn, e.args[0].value, depth + 1)
        if not isinstance(base, cst.Name) or not isinstance(dim, int):
            return 0
        dims = self.declared(fn).get(base.value)
        if not dims:
            return 0
        if dim in dims:
            return DYN
        return MAYBE if dim < 0 and any(isinstance(d, int) and d > 0 for d in dims) else 0

    # the first dimension of a tensor
    def dim0(self, fn, e: cst.BaseExpression, depth: int = 0) -> int:
        if depth > 10:
            return 0
        if isinstance(e, cst.Name):
            name = e.value
            params = _params(fn)
            if name in params:
                if _container_annotated(fn, name):
                    return 0
                if 0 in carried_dims(self.ctx, fn).get(name, ()):
                    return DYN  # handed a declared dynamic dim 0 by a declared model (semantics/dim_flow.py)
                if fn.why == "forward" or (fn.node.name.value == "forward"):
                    dims = self.declared(fn).get(name)
                    if dims:
                        return DYN if 0 in dims else 0
                    return MAYBE if self.mode is None and fn.env.get(name) in TENSORISH else 0
                return self._param_from_callers(fn, params.index(name), depth)
            return max((self.dim0(fn, v, depth + 1) for v in bound_values(fn, name)), default=0)
        if isinstance(e, cst.BinaryOperation):
            return max(self.dim0(fn, e.left, depth + 1), self.dim0(fn, e.right, depth + 1))
        if isinstance(e, cst.Call):
            q = self.ctx.model.imports.resolve(e.func) or ""
            pos = [a.value for a in e.args if a.keyword is None and not a.star]
            if q == "torch.arange" and pos:
                return self.size(fn, pos[1] if len(pos) >= 2 else pos[0], depth + 1)
            f = e.func
            if isinstance(f, cst.Attribute) and fn.kind(f.value) in TENSORISH:
                m = f.attr.value
                if m in _KEEP_DIM0 or (m in ("view", "reshape") and len(pos) == 1 and literal_value(pos[0]) == -1):
                    return self.dim0(fn, f.value, depth + 1)
        return 0

    def _param_from_callers(self, fn, index: int, depth: int) -> int:
        """A helper's parameter: the first dimension of what its callers on `self` pass."""
        if fn.cls is None:
            return 0
        name = fn.node.name.value
        best = 0
        for g in self.ctx.model.functions:
            if g is fn or g.cls is None:
                continue
            for c in g.calls:
                if c.receiver_kind != "self" or c.method != name:
                    continue
                r = g.cls.find_method(name)
                if r is None or r[1] is not fn.node:
                    continue
                pos = [a.value for a in c.node.args if a.keyword is None and not a.star]
                if index < len(pos):
                    best = max(best, self.dim0(g, pos[index], depth + 1))
        return best


@register
class LenOfDynamicTensor(Rule):
    code = "EXL120"
    name = "len-of-dynamic-tensor"
    severity = Severity.ERROR
    exporters = ("export-nonstrict", "onnx-dynamo", "onnx-legacy")
    summary = "len(t) of a tensor whose first dimension may be dynamic (use t.shape[0])."

    def check(self, ctx):
        dims = None
        for fn in ctx.model.functions:
            lens = [c for c in fn.calls if (c.qualname or dotted(c.node.func)) in _LEN and c.node.args]
            if not lens:
                continue
            if dims is None:
                dims = Dims(ctx)
                if dims.mode is False:
                    return ()
            in_range = {id(a.value) for c in fn.calls if (c.qualname or dotted(c.node.func)) in ("range", "builtins.range")
                        for a in c.node.args}
            for call in lens:
                if id(call.node) in in_range:
                    continue  # `for i in range(len(x))`: an unrolled loop (EXL111)
                arg = call.node.args[0].value
                if fn.kind(arg) not in TENSORISH:
                    continue
                level = dims.dim0(fn, arg)
                if not level:
                    continue
                src = snippet(ctx, arg)
                fix = Fix(replacement=f"{src}.shape[0]" if isinstance(arg, (cst.Name, cst.Attribute)) else f"({src}).shape[0]",
                          safety=FixSafety.SAFE,
                          description="`t.shape[0]` is the same number and stays symbolic")
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)}` of a tensor whose first dimension "
                    f"{'is declared' if level == DYN else 'may be'} dynamic: `len()` must return a Python int, so "
                    "torch.export non-strict specialises the dimension ('Constraints violated ... your code "
                    "specialized it to be a constant'), onnx-dynamo exports it static, and the legacy exporter "
                    "bakes the example's size (TracerWarning: Using len to get tensor shape). Use "
                    f"`{src}.shape[0]`, which stays symbolic (measured, torch 2.13).",
                    severity=None if level == DYN else Severity.WARNING,
                    fix=fix,
                )
        return ()


_STFT = ("torch.stft", "torch.functional.stft", "torch.Tensor.stft")
#: steps that keep a waveform's samples axis last (dynamic stays dynamic)
_KEEP_SIGNAL = frozenset("float double half to type_as contiguous clone detach squeeze mul add sub div "
                         "clamp abs neg".split())


def _signal_dynamic(d: Dims, fn, e: cst.BaseExpression, depth: int = 0) -> int:
    """Whether the last dimension of a (1-D or 2-D) waveform tensor may be dynamic."""
    if depth > 10:
        return 0
    if isinstance(e, cst.Name):
        params = _params(fn)
        if e.value in params:
            if fn.node.name.value == "forward":
                dims = d.declared(fn).get(e.value)
                if dims:
                    ints = {x for x in dims if isinstance(x, int)}
                    return DYN if ints & {1, -1} else (MAYBE if ints else 0)
                return MAYBE if d.mode is None and fn.env.get(e.value) in TENSORISH else 0
            rd = carried_dims(d.ctx, fn)
            if e.value in rd:
                # a declared model hands this helper its input, with declared dims (semantics/dim_flow.py)
                return DYN if rd[e.value] & {1, -1} else 0
            if fn.cls is None:
                # a plain helper's waveform (an audio front end's `stft_magnitude(signals, window)`,
                # held-out pkg_stft_window_attr_opset17): its callers' dims are not followed, so
                # it may be dynamic unless the project exports fixed shapes
                return MAYBE if d.mode is not False and fn.env.get(e.value) in TENSORISH else 0
            i, best = params.index(e.value), 0
            for g in d.ctx.model.functions:
                for c in g.calls:
                    if g is fn or g.cls is None or c.receiver_kind != "self" or c.method != fn.node.name.value:
                        continue
                    r = g.cls.find_method(c.method)
                    pos = [a.value for a in c.node.args if a.keyword is None and not a.star]
                    if r is not None and r[1] is fn.node and i < len(pos):
                        best = max(best, _signal_dynamic(d, g, pos[i], depth + 1))
            return best
        return max((_signal_dynamic(d, fn, v, depth + 1) for v in bound_values(fn, e.value)), default=0)
    if isinstance(e, cst.BinaryOperation):
        return max(_signal_dynamic(d, fn, e.left, depth + 1), _signal_dynamic(d, fn, e.right, depth + 1))
    if isinstance(e, cst.Call):
        f = e.func
        q = d.ctx.model.imports.resolve(f) or ""
        pos = [a.value for a in e.args if a.keyword is None and not a.star]
        if q == "torch.nn.functional.pad" and pos:
            return _signal_dynamic(d, fn, pos[0], depth + 1)
        if isinstance(f, cst.Attribute) and f.attr.value in _KEEP_SIGNAL and fn.kind(f.value) in TENSORISH:
            return _signal_dynamic(d, fn, f.value, depth + 1)
    return 0


@register
class StftDynamicLength(Rule):
    code = "EXL121"
    name = "stft-dynamic-length"
    severity = Severity.ERROR
    exporters = ("export-strict", "export-nonstrict")
    summary = "torch.stft of a waveform whose length is dynamic (torch.export specialises it)."

    def check(self, ctx):
        d = None
        for fn in ctx.model.functions:
            for call in fn.calls:
                q = call.qualname or ""
                if q not in _STFT:
                    continue
                if q == "torch.Tensor.stft":
                    recv = call.node.func.value if isinstance(call.node.func, cst.Attribute) else None
                else:
                    pos = [a.value for a in call.node.args if a.keyword is None and not a.star]
                    kw = [a.value for a in call.node.args if a.keyword is not None and a.keyword.value == "input"]
                    recv = pos[0] if pos else (kw[0] if kw else None)
                if recv is None:
                    continue
                if d is None:
                    d = Dims(ctx)
                    if d.mode is False:
                        return ()
                level = _signal_dynamic(d, fn, recv)
                if not level:
                    continue
                ctx.report(
                    call.node,
                    f"`{snippet(ctx, call.node)[:60]}` frames a waveform whose length "
                    f"{'is declared' if level == DYN else 'may be'} dynamic: torch.export (strict and non-strict) "
                    "fails with 'Constraints violated ... satisfy the generated guard (2 % (2 + 2*(n // hop))) != 0' "
                    "from the frame count of the complex result (measured, torch 2.13; onnx-dynamo exports it). "
                    "Export with a static length, or compute the spectrum as a strided `conv1d` with fixed "
                    "windowed DFT kernels (stride = hop), which keeps the length symbolic.",
                    severity=None if level == DYN else Severity.WARNING,
                )
        return ()
