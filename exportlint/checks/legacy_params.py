"""EXL128: a ``forward`` parameter with a Python bool/int default handed to an argument that must
be a Python value: the legacy exporter passes it in as a tensor.

Measured with torch 2.13.0 (``bench/labels/probes_zoo11/probe_legacy_default_scalar.py``, output
next to it; rules/EXL128.md): ``torch.onnx.export(model, (x,), dynamo=False)`` fills every
defaulted parameter of the exported ``forward`` positionally (``_decide_input_format``) and the
tracer turns Python bools, ints and floats among the arguments into tensors (graph inputs). So in
the exported module's ``forward(self, x, flag: bool = False, n: int = 2)``:

- ``F.scaled_dot_product_attention(..., is_causal=flag)`` / ``enable_gqa=flag``,
  ``x.sum(1, keepdim=flag)``, ``F.interpolate(..., align_corners=flag)``,
  ``F.dropout(x, training=flag)`` fail: ``TypeError: ... argument 'is_causal' must be bool, not
  Tensor`` (also when the value is given at the call, positionally);
- ``torch.cat(xs, dim=n)``, ``x.transpose(n, 3)``, ``x.softmax(n)`` fail: ``SymbolicValueError:
  Expected node type 'onnx::Constant' for argument 'dim' ..., got 'prim::Param'``;
- ``if flag:``, ``x.sum(n)``, ``F.dropout(p=s)``: pass.

timm's EVA (``eva.py:279``) fails this way: its model ``forward`` takes ``is_causal: bool = False``
and hands it down to SDPA. torch.export and onnx-dynamo keep Python values Python.

Reported at the use, in a ``forward`` whose own parameter (not rebound there) reaches the
argument. A warning: only the exported module's ``forward`` (or one its ``forward`` passes its
own parameter down to) is affected, and the file does not show which module is exported.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.checks.base import Rule, register
from exportlint.checks.common import snippet
from exportlint.findings import Severity
from exportlint.semantics.model import literal_value
from exportlint.semantics.kinds import DATA_SIZED, TENSORISH
from exportlint.semantics.nodes import iter_nodes

#: keyword arguments that must be Python bools (measured: TypeError with a tensor)
_BOOL_KW = {
    "is_causal": ("torch.nn.functional.scaled_dot_product_attention",),
    "enable_gqa": ("torch.nn.functional.scaled_dot_product_attention",),
    "align_corners": ("torch.nn.functional.interpolate", "torch.nn.functional.upsample",
                      "torch.nn.functional.grid_sample"),
    "training": ("torch.nn.functional.dropout",),
    "keepdim": None,  # any torch reduction / tensor method
}
#: dims that must be constants (measured: SymbolicValueError 'Expected node type onnx::Constant')
_DIM_FUNCS = {"torch.cat": 1, "torch.concat": 1, "torch.concatenate": 1}
_DIM_METHODS = {"softmax": 0, "log_softmax": 0, "transpose": None}


def _scalar_params(fn: cst.FunctionDef) -> dict[str, str]:
    """Parameters with a bool / int default written: name -> 'bool' | 'int'."""
    out: dict[str, str] = {}
    ps = list(fn.params.posonly_params) + list(fn.params.params) + list(fn.params.kwonly_params)
    for p in ps[1:]:
        if p.default is None:
            continue
        v = literal_value(p.default)
        if isinstance(v, bool):
            out[p.name.value] = "bool"
        elif isinstance(v, int):
            out[p.name.value] = "int"
    return out


def _rebound(fn: cst.FunctionDef, names: set[str]) -> set[str]:
    out: set[str] = set()
    for n in iter_nodes(fn.body):
        tgts: list = []
        if isinstance(n, cst.Assign):
            tgts = [t.target for t in n.targets]
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For)):
            tgts = [n.target]
        elif isinstance(n, cst.NamedExpr):
            tgts = [n.target]
        for t in tgts:
            for m in iter_nodes(t):
                if isinstance(m, cst.Name) and m.value in names:
                    out.add(m.value)
    return out


def _tensor(kind: Optional[str]) -> bool:
    return kind in TENSORISH or kind == DATA_SIZED


@register
class LegacyScalarParam(Rule):
    code = "EXL128"
    name = "legacy-scalar-forward-param"
    severity = Severity.WARNING
    exporters = ("onnx-legacy",)
    summary = ("A forward's bool/int parameter used where a Python value is required (is_causal=, keepdim=, "
               "a dim): the legacy exporter passes it in as a tensor.")

    def check(self, ctx):
        for fn in ctx.model.functions:
            if not fn.is_forward or fn.cls is None or not fn.cls.is_module:
                continue
            params = _scalar_params(fn.node)
            if not params:
                continue
            params = {k: v for k, v in params.items() if k not in _rebound(fn.node, set(params))}
            if not params:
                continue
            for call in fn.calls:
                exps = ctx.model.exporters_at(call.node, fn.node)
                if exps is not None and "onnx-legacy" not in exps:
                    continue
                hit = self._use(call, params)
                if hit is None:
                    continue
                name, what = hit
                ctx.report(call.node, _MESSAGE.format(src=snippet(ctx, call.node), name=name, what=what))
        return ()

    @staticmethod
    def _use(call, params: dict[str, str]) -> Optional[tuple[str, str]]:
        q = call.qualname or ""
        meth = call.method
        for a in call.node.args:
            if a.keyword is None or not isinstance(a.value, cst.Name) or params.get(a.value.value) != "bool":
                continue
            kw = a.keyword.value
            if kw not in _BOOL_KW:
                continue
            allowed = _BOOL_KW[kw]
            if allowed is None:
                if q.startswith("torch.") or (meth and _tensor(call.receiver_kind)):
                    return a.value.value, f"`{kw}=` (it must be a Python bool)"
            elif q in allowed:
                return a.value.value, f"`{kw}=` (it must be a Python bool)"
        pos = call.positional()
        idx = _DIM_FUNCS.get(q)
        tensor_method = meth in _DIM_METHODS and (q.startswith("torch.Tensor.") or _tensor(call.receiver_kind))
        if idx is None and tensor_method:
            idx = _DIM_METHODS[meth]
        if idx is not None or (meth == "transpose" and tensor_method):
            cands = [a.value for a in pos] if idx is None else ([pos[idx].value] if len(pos) > idx else [])
            cands += [a.value for a in call.node.args if a.keyword is not None and a.keyword.value == "dim"]
            for v in cands:
                if isinstance(v, cst.Name) and params.get(v.value) == "int":
                    return v.value, "a dimension (it must be a constant)"
        return None


_MESSAGE = ("`{src}` passes `{name}`, a parameter of this forward with a Python default, as {what}: if this "
            "module is the one exported with the legacy ONNX exporter (or its forward passes its own `{name}` "
            "down to here), the exporter fills the default in positionally and the tracer turns it into a "
            "tensor, and the export fails (measured, torch 2.13: \"argument 'is_causal' must be bool, not "
            "Tensor\"; a dim: \"Expected node type 'onnx::Constant' ... got 'prim::Param'\"). torch.export and "
            "onnx-dynamo keep it a Python value. Read the option from the module (`self.{name}`, set in "
            "`__init__`) instead of a forward parameter of the exported module, or export with dynamo=True.")
