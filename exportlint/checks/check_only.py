"""Values that only feed a check: the legacy tracer bakes them harmlessly.

``n = (ids == tok).sum().item()`` followed by ``torch_compilable_check(n == m, f"... {n} ...")``:
the Python number reaches no output of the graph, so the constant the legacy ONNX tracer
records for it changes nothing at other inputs (measured, torch 2.13: a `.item()` read only by
a check exports with onnx-legacy and matches eager on a different input). A name is "check
only" when every read of it sits inside a check call (a function whose name contains
``check``: ``torch._check``, project helpers), an ``assert`` or a ``raise``.

For EXL102 only (``logs=True``), a logging call counts too (``logging.info``, ``logger.warning``,
``self.log.debug``, ``warnings.warn``, ``print``): the value only builds a message, so the
constant the legacy tracer records changes no output (measured, torch 2.13: `.tolist()` /
`.item()` read only by `logging.info`, a logger and `print` export with onnx-legacy and match eager
on another input; bench/labels/probes_prec12/l2_fix_claims.py l2a). Espnet's Mask-CTC decoder logs
`ids2text(y_hat[y_idx].tolist())` between its steps.
"""

from __future__ import annotations

import libcst as cst

from exportlint.semantics.nodes import child_nodes, iter_nodes


def _is_check_call(n: cst.Call) -> bool:
    f = n.func
    name = f.attr.value if isinstance(f, cst.Attribute) else f.value if isinstance(f, cst.Name) else ""
    return "check" in name.lower()


#: methods of a logger (or the ``logging`` / ``warnings`` module) that only build a message
_LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "exception", "log"})


def _is_log_call(n: cst.Call) -> bool:
    """``print(...)``, ``logging.info(...)``, ``logger.warning(...)``, ``self.logger.debug(...)``,
    ``log.info(...)``, ``warnings.warn(...)``: by the receiver's own name, never a call result."""
    f = n.func
    if type(f) is cst.Name:
        return f.value == "print"
    if type(f) is cst.Attribute and f.attr.value in _LOG_METHODS:
        r = f.value
        base = (r.attr.value if type(r) is cst.Attribute else r.value if type(r) is cst.Name else "").lower()
        return base in ("logging", "log", "_log", "logger", "_logger", "warnings") or base.endswith("logger")
    return False


def _training_arm(test: cst.BaseExpression) -> bool:
    """`self.training` (also and-ed with another test): true only in a training-mode call."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        return _training_arm(test.left) or _training_arm(test.right)
    return (type(test) is cst.Attribute and test.attr.value == "training"
            and type(test.value) is cst.Name and test.value.value == "self")


def only_checked(fn_node: cst.FunctionDef, name: str, logs: bool = False) -> bool:
    """True when `name` is read somewhere in `fn_node` and every read is inside a check call,
    an ``assert`` or a ``raise`` (assignment targets are not reads); with ``logs``, inside a
    logging call too."""
    reads = 0
    stack: list[tuple[cst.CSTNode, bool]] = [(fn_node.body, False)]
    while stack:
        n, checked = stack.pop()
        t = type(n)
        if t is cst.Name:
            if n.value == name:
                if not checked:
                    return False
                reads += 1
            continue
        if t is cst.Assign:
            # targets are writes; only Subscript/Attribute targets read names
            for tgt in n.targets:
                if not isinstance(tgt.target, (cst.Name, cst.Tuple, cst.List)):
                    stack.append((tgt.target, checked))
            stack.append((n.value, checked))
            continue
        if logs and t is cst.If and _training_arm(n.test):
            # `if self.training: ... print0(..., curr_avg_attn)` (ptlflow CRAFT, T-TRAINREAD): the
            # arm an eval-mode export never runs, so the value reaches nothing there either
            stack.append((n.test, checked))
            stack.append((n.body, True))
            if n.orelse is not None:
                stack.append((n.orelse, checked))
            continue
        if t is cst.Call and (_is_check_call(n) or (logs and _is_log_call(n))):
            checked = True
        elif t is cst.Assert or t is cst.Raise:
            checked = True
        stack.extend((c, checked) for c in child_nodes(n))
    return reads > 0


def check_only_nodes(model, logs: bool = False) -> set[int]:
    """ids of the nodes inside the arguments of a check call (a function whose name contains
    `check`: torch._check, project helpers such as `KORNIA_CHECK`), an `assert` or the
    exception of a `raise` on the export path; with ``logs``, of a logging call too."""
    out: set[int] = set()
    for fn in model.functions:
        for call in fn.calls:
            if _is_check_call(call.node) or (logs and _is_log_call(call.node)):
                for a in call.node.args:
                    out.update(id(n) for n in iter_nodes(a.value))
        for br in fn.branches:
            if br.construct == "assert":
                out.update(id(n) for n in iter_nodes(br.node))
        for n in fn.nodes():  # (the walk shared with other rules; a raise is in the body)
            if type(n) is cst.Raise:
                # `raise ValueError(f"... {ids.max().item()}")`: the exception is built only when
                # raising, never in a trace that passes (measured, torch 2.13: legacy exports
                # and matches eager on other ids; bench/labels/probes_sweep5/q6_checks.py)
                for part in (n.exc, n.cause.item if n.cause is not None else None):
                    if part is not None:
                        out.update(id(x) for x in iter_nodes(part))
    return out


def fallback_copies(model, named: dict[int, str]) -> set[int]:
    """ids of the nodes of ``named`` (node id -> API name) that sit in an ``except`` handler of a
    ``try`` whose body calls the same API: `try: return torch.linalg.solve(a, b)` / `except
    RuntimeError: a = condition(a); return torch.linalg.solve(a, b)`. The handler runs only when
    the try body raised; an export that reaches the op fails (or passes) at the try body's call,
    reported there, and the fallback's copy is never run (asteroid's stable_solve/cholesky)."""
    out: set[int] = set()
    for fn in model.functions:
        for n in fn.nodes():
            if type(n) is not cst.Try:
                continue
            tried = {named[id(x)] for x in iter_nodes(n.body) if id(x) in named}
            if not tried:
                continue
            for h in n.handlers:
                out.update(id(x) for x in iter_nodes(h.body) if named.get(id(x)) in tried)
    return out
