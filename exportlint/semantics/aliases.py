"""Parameters that every export-path call passes the same object for (P-ISALIAS).

mmseg's SAN cross attention (a fork of `F.multi_head_attention_forward`) tests
`elif key is value or torch.equal(key, value):`; its only caller binds `k_x = v_x = norm(mem)`
and passes `(q_x, k_x, v_x)`, so `key is value` is True at every call and `torch.equal` (a
data-dependent test: strict 'Data dependent operator', non-strict `DataDependentOutputException`,
bench/labels/probes_sweep5/q6) never runs: the `or` short-circuits. `query is key or
torch.equal(query, key)` beside it compares two different tensors and stays reported.

``aliased_pairs(model, facts)``: the pairs of parameters of a function that are the same object
at every call of it on the export path in the file: the same local name passed twice, or two
names bound together by one chained assignment (`k = v = expr`) and bound nowhere else in the
caller. Functions that are export entries, or called from another file, have none (their callers
are not all seen).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from exportlint.semantics.nodes import iter_nodes


def is_pairs(nodes) -> set[frozenset]:
    """`a is b` tests (the left operand of an `or`) between two names among ``nodes``."""
    out: set[frozenset] = set()
    boolean, or_ = cst.BooleanOperation, cst.Or
    for n in nodes:
        # (exact types: libcst's concrete nodes have no subclasses; an isinstance per node goes
        # through the ABC machinery)
        if type(n) is boolean and type(n.operator) is or_:
            p = is_test(n.left)
            if p is not None:
                out.add(p)
    return out


def is_test(e: cst.BaseExpression) -> Optional[frozenset]:
    if (isinstance(e, cst.Comparison) and len(e.comparisons) == 1
            and isinstance(e.comparisons[0].operator, cst.Is)
            and isinstance(e.left, cst.Name) and isinstance(e.comparisons[0].comparator, cst.Name)
            and e.left.value != e.comparisons[0].comparator.value):
        return frozenset((e.left.value, e.comparisons[0].comparator.value))
    return None


def _bindings(fnode: cst.FunctionDef) -> tuple[dict[str, int], dict[str, set[int]]]:
    """name -> how often it is bound in the function; name -> ids of the chained assignments
    (`a = b = expr`) binding it."""
    count: dict[str, int] = {}
    chained: dict[str, set[int]] = {}
    p = fnode.params
    for prm in list(p.posonly_params) + list(p.params) + list(p.kwonly_params):
        count[prm.name.value] = count.get(prm.name.value, 0) + 1
    for n in iter_nodes(fnode.body):
        targets: tuple = ()
        if isinstance(n, cst.Assign):
            targets = tuple(t.target for t in n.targets)
            if len(n.targets) > 1:
                for t in n.targets:
                    if isinstance(t.target, cst.Name):
                        chained.setdefault(t.target.value, set()).add(id(n))
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            targets = (n.target,)
        elif isinstance(n, (cst.FunctionDef, cst.ClassDef)):
            count[n.name.value] = count.get(n.name.value, 0) + 1
        for t in targets:
            for x in iter_nodes(t):
                if isinstance(x, cst.Name):
                    count[x.value] = count.get(x.value, 0) + 1
    return count, chained


def _same_object(caller, a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    if not (isinstance(a, cst.Name) and isinstance(b, cst.Name)):
        return False
    if a.value == b.value:
        return True
    got = caller.__dict__.get("_alias_bindings")
    if got is None:
        got = caller.__dict__["_alias_bindings"] = _bindings(caller.node)
    count, chained = got
    return (count.get(a.value) == 1 and count.get(b.value) == 1
            and bool(chained.get(a.value, set()) & chained.get(b.value, set())))


def _arg_for(fdef: cst.FunctionDef, call: cst.Call, pname: str, skip: int) -> Optional[cst.BaseExpression]:
    """The expression a call passes for parameter ``pname``: a keyword argument, or a positional
    one before any `*args` (those keep their places; `**kw` cannot rebind them). None otherwise."""
    params = list(fdef.params.posonly_params) + list(fdef.params.params)
    names = [q.name.value for q in params][skip:]
    for a in call.args:
        if a.keyword is not None and a.keyword.value == pname:
            return a.value
    pos = []
    for a in call.args:
        if a.star:
            break
        if a.keyword is None:
            pos.append(a)
    if pname in names:
        i = names.index(pname)
        if i < len(pos):
            return pos[i].value
    return None


def aliased_pairs(model, facts) -> frozenset:
    """Pairs of parameters of ``facts``' function passed the same object at every export-path
    call in the file (see the module docstring)."""
    fdef = facts.node
    if facts.why != "called" or fdef.name.value == "forward" or id(fdef) in model.external_chains:
        return frozenset()
    wanted = is_pairs(facts.nodes())
    if not wanted:
        return frozenset()
    sites = [(f, call) for f in model.functions for callee, call in getattr(f, "callee_sites", ())
             if callee is fdef]
    if not sites:
        return frozenset()
    skip = 1 if facts.self_name else 0
    out = set()
    for pair in wanted:
        a, b = sorted(pair)
        ok = True
        for caller, call in sites:
            ea, eb = _arg_for(fdef, call, a, skip), _arg_for(fdef, call, b, skip)
            if ea is None or eb is None or not _same_object(caller, ea, eb):
                ok = False
                break
        if ok:
            out.add(pair)
    return frozenset(out)
