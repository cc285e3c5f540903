"""Calls that reset a container attribute to empty (EXL203 precision).

`self.items.clear()`, and `.pop()` inside a loop that runs while the same attribute is
non-empty (`while len(self.merged_adapters) > 0: name = self.merged_adapters.pop()`), leave
the container empty whatever it held before: the call writes no value computed in that call,
so nothing is carried to the next call by it (what fills the container, an `.append` or an
assignment, is reported where it happens). Measured, torch 2.13: a forward that drains a list
attribute this way exports with all four exporters and matches eager on a later input
(bench/labels/probes_sweep5/q1b_pop_only.py)."""

from __future__ import annotations

import libcst as cst

from exportlint.semantics.nodes import iter_nodes


def _self_attr(node: cst.CSTNode, self_name: str) -> str | None:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == self_name:
        return node.attr.value
    return None


def reset_calls(fn) -> set[int]:
    """ids of the `self.<attr>.clear()` calls and of the `self.<attr>.pop()` calls inside a
    `while` loop whose test reads `self.<attr>` (a drain) in the function."""
    if not fn.self_name:
        return set()
    out: set[int] = set()
    for n in iter_nodes(fn.node.body):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "clear" \
                and not n.args and _self_attr(n.func.value, fn.self_name):
            out.add(id(n))
        elif isinstance(n, cst.While):
            tested = {a for t in iter_nodes(n.test) if (a := _self_attr(t, fn.self_name))}
            if not tested:
                continue
            for c in iter_nodes(n.body):
                if isinstance(c, cst.Call) and isinstance(c.func, cst.Attribute) and c.func.attr.value == "pop" \
                        and _self_attr(c.func.value, fn.self_name) in tested:
                    out.add(id(c))
    return out


_EMPTY_CALLS = ("list", "dict", "set", "tuple")


def _empty_value(v: cst.BaseExpression) -> bool:
    """`[]`, `{}`, `()`, `None`, `list()` / `dict()` / `set()` / `tuple()`: a value that holds nothing."""
    if isinstance(v, (cst.List, cst.Dict, cst.Tuple)):
        return not v.elements
    if isinstance(v, cst.Name):
        return v.value == "None"
    return (isinstance(v, cst.Call) and not v.args and isinstance(v.func, cst.Name)
            and v.func.value in _EMPTY_CALLS)


def _only_resets(method: cst.FunctionDef) -> bool:
    """The method's body only empties attributes of its own object: `self.outputs[device] = []`,
    `self.items = {}`, `self.cache.clear()` (a docstring and `pass` aside)."""
    params = method.params.params
    if not params or not isinstance(method.body, cst.IndentedBlock):
        return False
    me = params[0].name.value
    seen = False
    for stmt in method.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if isinstance(small, cst.Pass) or (isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString)):
                continue
            if isinstance(small, cst.Assign):
                for t in small.targets:
                    tgt = t.target.value if isinstance(t.target, cst.Subscript) else t.target
                    if not _self_attr(tgt, me):
                        return False
                if not _empty_value(small.value):
                    return False
                seen = True
                continue
            c = small.value if isinstance(small, cst.Expr) else None
            if (isinstance(c, cst.Call) and not c.args and isinstance(c.func, cst.Attribute)
                    and c.func.attr.value == "clear" and _self_attr(c.func.value, me)):
                seen = True
                continue
            return False
    return seen


def _assigned_value(cls, attr: str):
    """The value a method of ``cls`` (or of a local base) assigns to ``self.<attr>``, when every
    such assignment assigns a call of one name (`self.save_output = SaveOutput()` in a helper that
    ``__init__`` calls, pyiqa AHIQ's ``init_saveoutput``); else None."""
    found = None
    stack, seen = [cls], set()
    while stack:
        c = stack.pop()
        if c.name in seen:
            continue
        seen.add(c.name)
        stack.extend(c.local_bases)
        for m in c.methods.values():
            params = m.params.params
            if not params:
                continue
            me = params[0].name.value
            for n in iter_nodes(m.body):
                if isinstance(n, cst.Assign) and any(_self_attr(t.target, me) == attr for t in n.targets):
                    v = n.value
                    if not (isinstance(v, cst.Call) and isinstance(v.func, cst.Name)):
                        return None
                    if found is not None and found.func.value != v.func.value:
                        return None
                    found = v
    return found


def resetting_method_call(model, attr_fact, method: str, cls=None, attr: str = "") -> bool:
    """`self.save_output.clear(x.device)` where `__init__` set `self.save_output = SaveOutput()`,
    a class of this file that is no module, and `SaveOutput.clear` only empties its own
    attributes (`self.outputs[device] = []`): a reset as `.clear()` is, whatever the method's name
    (U-SCRATCH, probe prec20 u12: forward hooks fill the list, forward reads it and resets it; all
    four exporters pass and match eager on a later input)."""
    v = attr_fact.value if attr_fact is not None else None
    if v is None and cls is not None and attr:
        v = _assigned_value(cls, attr)
    if v is None and attr_fact is None:
        # the attribute is set where the model does not follow (a helper that `__init__` calls,
        # whose body the reduced text leaves out: AHIQ's `self.init_saveoutput()`): the method
        # is one of this file's plain classes' when they define it, each only emptying
        owners = [c for c in model.classes.values() if not c.is_module and method in c.methods]
        return bool(owners) and all(_only_resets(c.methods[method]) for c in owners)
    if not (isinstance(v, cst.Call) and isinstance(v.func, cst.Name)):
        return False
    cls = model.classes.get(v.func.value)
    if cls is None or cls.is_module:
        return False
    found = cls.find_method(method)
    return found is not None and _only_resets(found[1])
