"""A tensor attribute that export-path code re-binds on the input's device (EXL303 precision).

fairseq / esm decoders keep `self._future_mask = torch.empty(0)` in __init__ and, in forward,
rebuild it when stale and re-bind it with `self._future_mask = self._future_mask.to(tensor)`:
the value forward reads is moved to the input's device (and dtype) on every call, so `.to(device)`
on the model not moving the attribute does not matter. Measured, torch 2.13: all four exporters
export such a decoder and match eager on a new input, with a fresh module and with one warmed by
an eager call (bench/labels/probes_sweep5/q2_future_mask.py)."""

from __future__ import annotations

import libcst as cst

from exportlint.semantics.kinds import TENSORISH


def _moved_to_input(fn, value: cst.BaseExpression) -> bool:
    """`<e>.to(t)` / `.type_as(t)` with `t` a tensor of this function, `.to(x.device)`,
    `.to(device=x.device)`: moved to where a value of the call is (not to a literal device)."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
        return False
    if value.func.attr.value not in ("to", "type_as"):
        return False
    for a in value.args:
        if a.star:
            continue
        v = a.value
        if isinstance(v, cst.Attribute) and v.attr.value == "device" and (a.keyword is None or a.keyword.value == "device"):
            return True
        if a.keyword is None and fn.kinds.get(id(v)) in TENSORISH:
            return True
    return False


def rebound_on_input_device(functions, cls_name: str, attr: str) -> bool:
    """Whether export-path code of class `cls_name` assigns `self.<attr> = <...>.to(<input>)`."""
    for fn in functions:
        if fn.cls is None or fn.cls.name != cls_name or not fn.self_name:
            continue
        for w in fn.state_writes:
            if w.target != f"self.{attr}" or not isinstance(w.node, cst.Assign):
                continue
            if _moved_to_input(fn, w.node.value):
                return True
    return False
