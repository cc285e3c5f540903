"""Data-sized tensors: tensors whose first dimension depends on tensor data.

Boolean-mask indexing (``x[mask]``), ``nonzero``, ``masked_select``, ``unique``, ``torch.where(m)[0]``
give a tensor whose length is an unbacked size under torch.export; a branch on that length fails
('Could not guard on data-dependent expression Eq(u0, 0)', EXL124 in checks/size_semantics.py).

Inside one function the names bound to such tensors are found syntactically (with the kinds the
flow analysis gave). Across functions, of this file or of another project file:

- a parameter is data-sized when every call that reaches the function hands it a data-sized
  tensor (the calls of this file, read here; the calls of other files, through the argument
  kind ``kinds.DATA_SIZED`` of their ``Root``, which ``SemanticModel.root_data_sized`` records);
- a name bound to a call's result (``kept = select(x)``, ``scores, labels = filter(s)``) is
  data-sized when the callee returns a data-sized tensor there in every ``return`` (a function of
  this file, read here; of another file, through ``SemanticModel.call_returns`` under the key
  suffix ``kinds.DATA_SIZED_RESULT``, which the callee's own analysis wrote).

A parameter of an export entry (a ``forward``), a function reached from another file with other
arguments, or a name also bound to something else is not data-sized: unknown stays unknown.
"""

from __future__ import annotations

from typing import Any, Optional

import libcst as cst

from exportlint.semantics.apis import DDS_OPS
from exportlint.semantics.imports import dotted
from exportlint.semantics.kinds import DATA_SIZED_RESULT, MASK, TENSORISH
from exportlint.semantics.nodes import assignments_in_scope, body_statements, child_nodes, iter_nodes, literal_value

#: tensor methods whose result keeps the receiver's first dimension
_KEEP0 = frozenset("squeeze float double half long int bool to type_as contiguous clone detach sigmoid relu "
                   "exp abs neg sqrt clamp".split())

_NESTED = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
#: ``_NESTED`` and the stops of ``_result``'s walk as sets of types: concrete libcst classes
#: without subclasses, so a type test answers as ``isinstance``, without running
#: ``ABCMeta.__instancecheck__`` for each node that is none of them
_NESTED_TYPES = frozenset(_NESTED)
_SUSPEND_TYPES = frozenset({cst.Yield, cst.Await})


def is_data_sized(fn: Any, model: Any, e: cst.BaseExpression, dds: set) -> bool:
    """Whether e (read in fn) is a tensor whose first dimension depends on tensor data; ``dds``:
    the names of fn known to be."""
    if isinstance(e, cst.Name):
        return e.value in dds
    if isinstance(e, (cst.Subscript, cst.Attribute)) and container_of(fn, model, e, dds) == "-":
        return True  # an element of a list of such tensors, a field of a dict / record holding one
    if isinstance(e, cst.Subscript):
        if isinstance(e.value, cst.Name) and e.value.value in dds:
            return True  # a slice or row selection of such a tensor keeps it
        if isinstance(e.value, cst.Call) and _where_one(model, e.value):
            return True  # torch.where(mask)[0]
        if fn.kind(e.value) not in TENSORISH:
            return False
        first = e.slice[0].slice if e.slice else None
        if isinstance(first, cst.Index):
            v = first.value
            return fn.kind(v) == MASK or is_data_sized(fn, model, v, dds)
        return False
    if isinstance(e, cst.Call):
        q = model.imports.resolve(e.func) or ""
        if q.startswith("torch.") and q.rsplit(".", 1)[-1] in DDS_OPS:
            return True
        f = e.func
        if isinstance(f, cst.Attribute) and fn.kind(f.value) in TENSORISH:
            m = f.attr.value
            if m in DDS_OPS:
                return True
            if m in _KEEP0 or (m in ("view", "reshape", "flatten") and len(e.args) <= 1):
                return is_data_sized(fn, model, f.value, dds)
            if m == "index_select" and len(e.args) == 2 and literal_value(e.args[0].value) == 0:
                return is_data_sized(fn, model, e.args[1].value, dds)
        if q == "torch.index_select" and len(e.args) == 3 and literal_value(e.args[1].value) == 0:
            return is_data_sized(fn, model, e.args[2].value, dds)
    return False


# ---------------------------------------------------------------------------------------
# containers: lists of data-sized tensors, dicts / records with data-sized fields
# ---------------------------------------------------------------------------------------
# A container's marker (also what ``_result`` returns for a function returning one, carried
# across files in ``call_returns`` like the tuple positions): "[E]" a list every element of which
# is E; "{a|b}" a dict display (or a record built with keywords) whose keys / fields a and b hold
# data-sized tensors; "-" a data-sized tensor itself.


def container_of(fn: Any, model: Any, e: cst.BaseExpression, dds: set) -> Optional[str]:
    """The marker of what ``e`` holds, when it is a known container (or an element / field of
    one), else None."""
    conts = _conts(model, fn)
    if isinstance(e, cst.Name):
        return conts.get(e.value)
    if isinstance(e, cst.Subscript) and len(e.slice) == 1 and isinstance(e.slice[0].slice, cst.Index):
        inner = container_of(fn, model, e.value, dds)
        if inner is None:
            return None
        key = literal_value(e.slice[0].slice.value)
        if inner.startswith("[") and inner.endswith("]") and not isinstance(key, str):
            return inner[1:-1]  # an element of the list
        if inner.startswith("{") and isinstance(key, str):
            return "-" if key in inner[1:-1].split("|") else None
        return None
    if isinstance(e, cst.Attribute):
        inner = container_of(fn, model, e.value, dds)
        if inner is not None and inner.startswith("{"):
            return "-" if e.attr.value in inner[1:-1].split("|") else None
    return None


def _display_marker(fn: Any, model: Any, e: cst.BaseExpression, dds: set) -> Optional[str]:
    """A dict display with string keys (or a call with keyword arguments only: a record's
    construction, read through its fields) whose data-sized values give "{k|...}"."""
    keys: list[str] = []
    if isinstance(e, cst.Dict):
        for el in e.elements:
            if not isinstance(el, cst.DictElement):
                return None
            k = literal_value(el.key)
            if not isinstance(k, str):
                return None
            if is_data_sized(fn, model, el.value, dds):
                keys.append(k)
    elif isinstance(e, cst.Call) and e.args and all(a.keyword is not None and not a.star for a in e.args):
        kind = fn.kind(e)
        if not kind.startswith("obj{"):
            return None  # only an instance of a known project record (semantics/objects.py)
        for a in e.args:
            if is_data_sized(fn, model, a.value, dds):
                keys.append(a.keyword.value)
    else:
        return None
    return "{" + "|".join(sorted(keys)) + "}" if keys else None


def _element_marker(fn: Any, model: Any, e: cst.BaseExpression, dds: set) -> Optional[str]:
    if is_data_sized(fn, model, e, dds):
        return "-"
    return _display_marker(fn, model, e, dds) or container_of(fn, model, e, dds)


def _conts(model: Any, fn: Any) -> dict:
    return model.__dict__.setdefault("_data_sized_conts", {}).get(id(fn), {})


def _containers(model: Any, fn: Any, binds: list, dds: set, cur: dict) -> tuple[dict, set]:
    """(name -> marker of the containers fn binds, names of loop targets that walk a list of
    data-sized tensors). A list name counts when it is bound once, to ``[]`` or a list display,
    and only ``.append(x)`` changes it, every element with the same marker."""
    table = model.__dict__.setdefault("_data_sized_conts", {})
    conts: dict[str, str] = {}
    table[id(fn)] = conts
    bound: dict[str, list] = {}
    for n, v, at in binds:
        bound.setdefault(n, []).append((v, at))
    appends: dict[str, list] = {}
    other_use: set = set()
    for node in fn.nodes():
        t = type(node)  # (exact types: concrete libcst classes, none subclassed; see _NESTED_TYPES)
        if t is cst.Call and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
            name = node.func.value.value
            if node.func.attr.value == "append" and len(node.args) == 1:
                appends.setdefault(name, []).append(node.args[0].value)
            elif node.func.attr.value in ("extend", "insert", "pop", "remove", "clear", "sort", "reverse",
                                          "update", "setdefault", "__setitem__"):
                other_use.add(name)
        elif t is cst.AssignTarget or t is cst.AugAssign:
            tg = node.target
            if isinstance(tg, cst.Subscript) and isinstance(tg.value, cst.Name):
                other_use.add(tg.value.value)
    for _ in range(3):
        before = dict(conts)
        for n, vs in bound.items():
            if n in other_use or n in dds or len(vs) != 1:
                continue
            v, at = vs[0]
            m = None
            if at is None and isinstance(v, cst.List):
                items = [el.value for el in v.elements]
                ms = {_element_marker(fn, model, x, dds) for x in items + appends.get(n, [])}
                m = "[" + ms.pop() + "]" if len(ms) == 1 and None not in ms else None
            elif at is None and isinstance(v, cst.Dict):
                m = None if n in appends else _display_marker(fn, model, v, dds)
            elif at is None and isinstance(v, cst.Call) and n not in appends:
                got = _result_positions(model, fn, v, cur)
                if got and got[0] in "[{":
                    m = got
                elif got is None:
                    m = _display_marker(fn, model, v, dds)
            elif at is None and isinstance(v, (cst.Subscript, cst.Attribute)):
                got = container_of(fn, model, v, dds)
                m = got if got and got != "-" else None
            if m is not None:
                conts[n] = m
            else:
                conts.pop(n, None)
        if conts == before:
            break
    # loop targets over a list of data-sized tensors (``for t in kept``, ``for i, t in
    # enumerate(kept)``): data-sized at the reads of the loop body before t is rebound there
    spans: list = []
    for node in fn.nodes():
        if type(node) is not cst.For:
            continue
        it, tgt = node.iter, node.target
        if (isinstance(it, cst.Call) and (dotted(it.func) or "") in ("enumerate", "builtins.enumerate")
                and it.args and isinstance(tgt, cst.Tuple) and len(tgt.elements) == 2):
            it, tgt = it.args[0].value, tgt.elements[1].value
        m = container_of(fn, model, it, dds)
        if not (m and m.startswith("[") and isinstance(tgt, cst.Name)):
            continue
        elem = m[1:-1]
        name = tgt.value
        if elem != "-":
            continue
        ids: set = set()
        for st in body_statements(node.body):
            rebinds = any(isinstance(x, cst.AssignTarget) and isinstance(x.target, cst.Name) and x.target.value == name
                          for x in iter_nodes(st))
            if not rebinds:
                ids.update(id(x) for x in iter_nodes(st))
                continue
            if isinstance(st, (cst.If, cst.While)):
                ids.update(id(x) for x in iter_nodes(st.test))
            break
        spans.append((ids, name))
    return conts, spans


def _where_one(model: Any, call: cst.Call) -> bool:
    q = model.imports.resolve(call.func) or ""
    return q == "torch.where" and len(call.args) == 1 and call.args[0].keyword is None


def call_key(fn: Any, site: Any) -> Optional[str]:
    """The key a call into another file is known by in ``SemanticModel.call_returns`` (as
    ``semantics.project.cross_file_calls`` names it)."""
    cls, e = fn.cls, site.node
    if cls is not None and site.receiver_kind == "self":
        return f"{cls.name}.self.{site.method}"
    if (cls is not None and isinstance(e.func, cst.Attribute) and isinstance(e.func.value, cst.Attribute)
            and isinstance(e.func.value.value, cst.Name) and fn.self_name is not None
            and e.func.value.value.value == fn.self_name):
        return f"{cls.name}.self.{e.func.value.attr.value}.{site.method}"
    return site.qualname


def _result_positions(model: Any, fn: Any, call: cst.Call, cur: dict) -> Optional[str]:
    """Where the result of ``call`` (in fn) is data-sized: ``"-"`` (the result), ``"0,2"``
    (positions of a returned tuple) or None."""
    callee = fn.local_callee(call)
    if callee is not None:
        facts = model.facts_for(callee)
        if facts is None:
            return None
        memo = model.__dict__.setdefault("_data_sized_memo", {})
        if id(facts) not in memo:
            memo[id(facts)] = _result(model, facts, cur)
        return memo[id(facts)]
    if not model.call_returns:
        return None
    for site in fn.calls:
        if site.node is call:
            key = call_key(fn, site)
            return model.call_returns.get(key + DATA_SIZED_RESULT) if key else None
    return None


def _bind_sized(model: Any, fn: Any, v: cst.BaseExpression, at: Optional[int], dds: set, cur: dict) -> bool:
    if at is None:
        if is_data_sized(fn, model, v, dds):
            return True
        return isinstance(v, cst.Call) and _result_positions(model, fn, v, cur) == "-"
    if not isinstance(v, cst.Call):
        return False
    f = v.func
    if (at in (0, 1) and isinstance(f, cst.Attribute) and f.attr.value in ("sort",)
            and fn.kind(f.value) in TENSORISH):
        return is_data_sized(fn, model, f.value, dds)  # values, indices = t.sort(): t's shape
    got = _result_positions(model, fn, v, cur)
    return bool(got) and got != "-" and str(at) in got.split(",")


def _binds(fn: Any) -> list:
    """(name, value, position in an unpacked call result or None) of fn's assignments."""
    binds: list[tuple[str, cst.BaseExpression, Optional[int]]] = [
        (n, v, None) for n, v, _ in assignments_in_scope(fn.node)]
    # (``fn.nodes()``: the walk shared with other rules; an assignment is in the body, never in the
    # header, so the same ones in the same order as a walk of ``fn.node.body``)
    assign = cst.Assign
    for node in fn.nodes():
        if type(node) is assign and len(node.targets) == 1:
            t, v = node.targets[0].target, node.value
            if isinstance(t, cst.Tuple) and isinstance(v, cst.Tuple) and len(t.elements) == len(v.elements):
                binds += [(te.value.value, ve.value, None) for te, ve in zip(t.elements, v.elements)
                          if isinstance(te.value, cst.Name)]
            elif isinstance(t, (cst.Tuple, cst.List)) and isinstance(v, cst.Call):
                binds += [(te.value.value, v, i) for i, te in enumerate(t.elements)
                          if isinstance(te.value, cst.Name)]
    return binds


def _names(model: Any, fn: Any, binds: list, cur: dict, sites: dict) -> set:
    dds = _names_only(model, fn, binds, cur, sites)
    _, spans = _containers(model, fn, binds, dds, cur)
    if _conts(model, fn) or spans:  # names bound to a container's element / field, then again
        dds = _names_only(model, fn, binds, cur, sites)
        _, spans = _containers(model, fn, binds, dds, cur)
    loops = model.__dict__.setdefault("_data_sized_loops", {})
    if spans:
        loops[id(fn)] = spans
    else:
        loops.pop(id(fn), None)
    return dds


def _names_only(model: Any, fn: Any, binds: list, cur: dict, sites: dict) -> set:
    sized = _sized_params(model, fn, cur, sites)
    dds: set = set(sized)
    for _ in range(3):
        before = len(dds)
        for n, v, at in binds:
            if n not in dds and _bind_sized(model, fn, v, at, dds, cur):
                dds.add(n)
        if len(dds) == before:
            break
    # a name rebound to something else as well is not reliably data-sized
    # (a parameter not known data-sized is a binding to something else, before the body)
    params = (set(_params(fn)) | {p.name.value for p in fn.node.params.kwonly_params}) - sized
    dropped = [n for n in dds if n in params
               or not all(_bind_sized(model, fn, v, at, dds, cur) for m, v, at in binds if m == n)]
    dds.difference_update(dropped)
    late = _late(model, fn, dropped, binds, dds, cur) if dropped else None
    if late:
        model.__dict__.setdefault("_data_sized_late", {})[id(fn)] = late
    else:
        model.__dict__.get("_data_sized_late", {}).pop(id(fn), None)
    return dds


def _top_index(fn: Any) -> dict[int, int]:
    """id(node) -> the index of the statement of fn's body it is in (cached per function)."""
    got = fn.__dict__.get("_data_sized_top")
    if got is None:
        got = {}
        for j, st in enumerate(body_statements(fn.node.body)):
            for n in iter_nodes(st):
                got[id(n)] = j
        fn.__dict__["_data_sized_top"] = got
    return got


def _late(model: Any, fn: Any, names: list, binds: list, dds: set, cur: dict) -> dict[str, list]:
    """Names also bound to something else (``x = x[mask]`` after other bindings of ``x``; ``keep``
    rebound to another result later): name -> the spans ``(first, last)`` of indices of body
    statements where it holds a data-sized tensor (``last`` None: to the end). A span starts after
    a binding that is a statement of the function's body itself (not under an ``if`` or a loop)
    and binds a data-sized tensor; it ends at the next binding (the statement of a plain rebinding
    still reads the old value on its right-hand side; a rebinding under a compound statement ends
    it before that statement). Bindings are judged with the names data-sized at their statement,
    other late names included (two rounds)."""
    top = _top_index(fn)
    body = list(body_statements(fn.node.body))
    spans: dict[str, list] = {}
    for _ in range(3):
        out: dict[str, list] = {}
        for n in names:
            mine = sorted(((top.get(id(v), -1), i, v, at) for i, (m, v, at) in enumerate(binds) if m == n),
                          key=lambda b: (b[0], b[1]))
            status, since = False, 0
            got: list = []
            for j, _, v, at in mine:
                st = body[j] if 0 <= j < len(body) else None
                alone = sum(1 for b in mine if b[0] == j) == 1
                simple = (alone and isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1
                          and isinstance(st.body[0], cst.Assign))
                here = dds | _covering(spans, j)
                if simple and _bind_sized(model, fn, v, at, here | {n} if status else here - {n}, cur):
                    if not status:
                        status, since = True, j + 1
                    continue
                if status and j >= since:
                    got.append((since, j if simple else j - 1))
                status = False
            if status:
                got.append((since, None))
            got = [(a, b) for a, b in got if b is None or b >= a]
            if got:
                out[n] = got
        if out == spans:
            break
        spans = out
    return spans


def _covering(spans: dict, j: int) -> set:
    return {n for n, ss in spans.items() if any(a <= j and (b is None or j <= b) for a, b in ss)}


def names_at(model: Any, fn: Any, node: cst.CSTNode) -> set:
    """The data-sized names of fn where ``node`` is read (``data_sized_names``, and the names
    rebound to a data-sized tensor by a statement of the function's body before node's)."""
    return _at(model, fn, node, data_sized_names(model, fn))


def _at(model: Any, fn: Any, node: cst.CSTNode, dds: set) -> set:
    loops = model.__dict__.get("_data_sized_loops", {}).get(id(fn))
    if loops:
        dds = dds | {n for ids, n in loops if id(node) in ids}
    late = model.__dict__.get("_data_sized_late", {}).get(id(fn))
    if not late:
        return dds
    j = _top_index(fn).get(id(node))
    if j is None:
        return dds
    return dds | _covering(late, j)


def _table(model: Any) -> dict:
    """id(FunctionFacts) -> its data-sized names, for every function of the model: the calls
    between them read each other's names, so all are computed together, to a fixpoint."""
    got = model.__dict__.get("_data_sized_names")
    if got is not None:
        return got
    fns = list(model.functions)
    if not _seeded(model, fns):  # nothing in the file makes a data-sized tensor
        model.__dict__["_data_sized_names"] = got = {id(f): set() for f in fns}
        return got
    binds = {id(f): _binds(f) for f in fns}
    sites: dict[int, list] = {}  # id(callee FunctionDef) -> [(caller facts, call site)]
    for f in fns:
        for site in f.calls:
            c = f.local_callee(site.node)
            if c is not None and c is not f.node:
                sites.setdefault(id(c), []).append((f, site))
    cur: dict[int, set] = {id(f): set() for f in fns}
    for _ in range(4):
        changed = False
        model.__dict__["_data_sized_memo"] = {}  # callees' results, once per round
        lates = model.__dict__.setdefault("_data_sized_late", {})
        for f in fns:
            late = lates.get(id(f))
            new = _names(model, f, binds[id(f)], cur, sites)
            if new != cur[id(f)] or lates.get(id(f)) != late:
                cur[id(f)] = new
                changed = True
        if not changed:
            break
    model.__dict__.pop("_data_sized_memo", None)
    model.__dict__["_data_sized_names"] = cur
    return cur


def _seeded(model: Any, fns: list) -> bool:
    """Whether some function can hold a data-sized tensor: a call into it hands one, a call out
    of it returns one, or it calls an op that makes one or indexes with a mask."""
    if model.root_data_sized or model.call_returns.any_suffix(DATA_SIZED_RESULT):
        return True
    sub = cst.Subscript
    for f in fns:
        for site in f.calls:
            if (site.method or (site.qualname or "").rsplit(".", 1)[-1]) in DDS_OPS or site.qualname == "torch.where":
                return True
        kinds = f.kinds
        if MASK not in kinds.values():
            continue
        for n in f.nodes():
            if type(n) is sub and n.slice and isinstance(n.slice[0].slice, cst.Index) and \
                    kinds.get(id(n.slice[0].slice.value)) == MASK:
                return True
    return False


def data_sized_names(model: Any, fn: Any) -> set:
    """Names of fn bound to a data-sized tensor."""
    got = _table(model).get(id(fn))
    if got is None:  # a function the model does not list: its own assignments only
        got = _names(model, fn, _binds(fn), {}, {})
    return got


def _params(fn: Any) -> list[str]:
    ps = [p.name.value for p in list(fn.node.params.posonly_params) + list(fn.node.params.params)]
    return ps[1:] if fn.self_name is not None and ps else ps


def _sized_params(model: Any, fn: Any, cur: dict, sites: dict) -> set:
    """The parameters of fn that every call reaching it hands a data-sized tensor."""
    external = id(fn.node) in model.external_chains
    if fn.node.name.value == "forward" or (fn.why != "called" and not external):
        return set()  # an export entry (its inputs are the exporter's), or not reached by a call
    params = _params(fn)
    cand = set(params) | {p.name.value for p in fn.node.params.kwonly_params}
    if external:  # reached from another file
        marks = model.root_data_sized.get(id(fn.node), frozenset())
        cand &= {params[m] if isinstance(m, int) and m < len(params) else m for m in marks}
    calls = sites.get(id(fn.node), ())
    if not calls and not external:
        return set()
    for caller, site in calls:
        if not cand:
            break
        cdds = _at(model, caller, site.node, cur.get(id(caller), set()))
        passed: set = set()
        for i, a in enumerate(site.node.args):
            if a.star:
                return set()
            name = a.keyword.value if a.keyword is not None else (params[i] if i < len(params) else None)
            if name is not None and is_data_sized(caller, model, a.value, cdds):
                passed.add(name)
        cand &= passed
    return cand


def _result(model: Any, fn: Any, cur: dict) -> Optional[str]:
    found: list[cst.Return] = []
    stack: list[cst.CSTNode] = [fn.node.body]
    nested, suspend, ret = _NESTED_TYPES, _SUSPEND_TYPES, cst.Return
    while stack:
        n = stack.pop()
        t = type(n)
        if t in nested:
            continue
        if t in suspend:
            return None
        if t is ret:
            found.append(n)
            continue
        stack.extend(child_nodes(n))
    if not found or any(r.value is None for r in found):
        return None
    own = cur.get(id(fn), set())
    rets = [(r.value, _at(model, fn, r, own)) for r in found]
    if all(is_data_sized(fn, model, r, dds) for r, dds in rets):
        return "-"
    ms = {_display_marker(fn, model, r, dds) or container_of(fn, model, r, dds) for r, dds in rets}
    if len(ms) == 1:
        m = ms.pop()
        if m is not None and m[0] in "[{":
            return m  # a list of data-sized tensors, a dict / record holding some
    if not all(isinstance(r, cst.Tuple) for r, _ in rets):
        return None
    arity = {len(r.elements) for r, _ in rets}
    if len(arity) != 1:
        return None
    pos = [i for i in range(arity.pop())
           if all(not isinstance(r.elements[i], cst.StarredElement)
                  and is_data_sized(fn, model, r.elements[i].value, dds) for r, dds in rets)]
    return ",".join(map(str, pos)) or None


def data_sized_result(model: Any, fn: Any) -> Optional[str]:
    """``"-"`` when every ``return`` of fn gives a data-sized tensor, ``"0,2"`` for the positions
    of a returned tuple display that are data-sized in every ``return``; None otherwise."""
    return _result(model, fn, _table(model))


def data_size_read(fn: Any, test: cst.BaseExpression, dds: set) -> Optional[cst.BaseExpression]:
    """The first read of a data-dependent size in a test: `t.numel()`, `t.shape[0]`, `t.size(0)`,
    `len(t)` of a data-sized tensor t."""
    for n in iter_nodes(test):
        if isinstance(n, cst.Call):
            f = n.func
            if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value in dds:
                if f.attr.value in ("numel", "nelement") and not n.args:
                    return n
                if f.attr.value == "size" and n.args and literal_value(n.args[0].value) == 0:
                    return n
            if (dotted(f) in ("len", "builtins.len") and len(n.args) == 1 and isinstance(n.args[0].value, cst.Name)
                    and n.args[0].value.value in dds):
                return n
        elif isinstance(n, cst.Subscript) and isinstance(n.value, cst.Attribute) and n.value.attr.value == "shape":
            base = n.value.value
            if (isinstance(base, cst.Name) and base.value in dds and len(n.slice) == 1
                    and isinstance(n.slice[0].slice, cst.Index) and literal_value(n.slice[0].slice.value) == 0):
                return n
    return None
