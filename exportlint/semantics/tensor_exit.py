"""`if isinstance(x, torch.Tensor): ... return`: a tensor input leaves the function there.

Pre-processing front-ends (a model wrapper whose ``forward`` takes file names, PIL images, numpy
arrays *or* a batch tensor) handle the tensor first and return; everything after that ``if``
runs only for the other input types. An export passes tensors, so when the tested name is a
tensor on the export path (a ``forward`` input, a tensor built there) the rest of the function is
not on the export path (flow.py stops analysing it, as after ``if torch.jit.is_tracing():
return``). A name of unknown kind keeps the rest analysed (unknown stays unknown).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from exportlint.semantics.nodes import TENSOR_TYPES, body_statements, dotted


def tensor_exit_name(st: cst.If, imports: Any) -> str | None:
    """The name ``x`` of ``if isinstance(x, torch.Tensor):`` (no ``else``) whose body always
    leaves the function (ends with ``return`` or ``raise``); None otherwise."""
    if st.orelse is not None:
        return None
    t = st.test
    if not (isinstance(t, cst.Call) and isinstance(t.func, cst.Name) and t.func.value == "isinstance"
            and len(t.args) == 2 and isinstance(t.args[0].value, cst.Name)):
        return None
    types = t.args[1].value
    elts = [el.value for el in types.elements] if isinstance(types, cst.Tuple) else [types]
    if not elts:
        return None
    for el in elts:
        d = dotted(el)
        if d is None or (imports.resolve(el) or d) not in TENSOR_TYPES:
            return None
    body = list(body_statements(st.body))
    if not body:
        return None
    last = body[-1]
    if isinstance(last, cst.With):  # `with amp.autocast(...): return self.model(x)`
        inner = list(body_statements(last.body))
        last = inner[-1] if inner else None
    if not (isinstance(last, cst.SimpleStatementLine) and last.body
            and isinstance(last.body[-1], (cst.Return, cst.Raise))):
        return None
    return t.args[0].value.value
