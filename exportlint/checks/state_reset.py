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
